package store

import (
	"context"
	"database/sql"
)

// runner runs the store's queries on the database (tx nil) or in a
// transaction, each as a statement prepared once per connection: on
// SQLite, parsing every query anew was a fifth of a busy hub's CPU; on
// PostgreSQL, whose driver (lib/pq) prepares nothing itself, about a
// third of the server's (BENCHMARKS.md, "The hub").
type runner struct {
	s  *sqlStore
	tx *sql.Tx
}

// on is the runner of tx, or of the database when tx is nil.
func (s *sqlStore) on(tx *sql.Tx) runner { return runner{s, tx} }

// stmt is query's prepared statement, bound to the runner's transaction;
// nil (run it unprepared) for a query not prepared yet in a transaction
// on PostgreSQL, which prepareMet prepares after it. Preparing takes a
// connection of the pool, and there transactions run side by side: with
// every connection in a transaction waiting for another, the pool
// deadlocked (it did, with 4). SQLite's transactions take turns in one
// writer (s.writes), so one never waits for a connection another holds.
func (r runner) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	var st *sql.Stmt
	if v, ok := r.s.stmts.Load(query); ok {
		st = v.(*sql.Stmt)
	} else if r.tx != nil && r.s.writes == nil {
		r.s.met.Store(query, nil)
		return nil, nil
	} else {
		p, err := r.s.db.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		v, loaded := r.s.stmts.LoadOrStore(query, p)
		if loaded {
			p.Close()
		}
		st = v.(*sql.Stmt)
	}
	if r.tx != nil {
		// Prepared again only on a connection that lacks it.
		st = r.tx.StmtContext(ctx, st)
	}
	return st, nil
}

func (r runner) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := r.stmt(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case st != nil:
		return st.QueryContext(ctx, args...)
	case r.tx != nil:
		return r.tx.QueryContext(ctx, query, args...)
	}
	return r.s.db.QueryContext(ctx, query, args...)
}

func (r runner) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := r.stmt(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case st != nil:
		return st.ExecContext(ctx, args...)
	case r.tx != nil:
		return r.tx.ExecContext(ctx, query, args...)
	}
	return r.s.db.ExecContext(ctx, query, args...)
}

// QueryRowContext is sql's QueryRowContext; an error preparing the
// statement is the row's Scan error.
func (r runner) QueryRowContext(ctx context.Context, query string, args ...any) rowScanner {
	st, err := r.stmt(ctx, query)
	switch {
	case err != nil:
		return errRow{err}
	case st != nil:
		return st.QueryRowContext(ctx, args...)
	case r.tx != nil:
		return r.tx.QueryRowContext(ctx, query, args...)
	}
	return r.s.db.QueryRowContext(ctx, query, args...)
}

// errRow is a row whose query failed.
type errRow struct{ err error }

func (e errRow) Scan(...any) error { return e.err }

// closeStmts closes the prepared statements (before the database).
func (s *sqlStore) closeStmts() {
	s.stmts.Range(func(k, v any) bool {
		v.(*sql.Stmt).Close()
		s.stmts.Delete(k)
		return true
	})
}

// prepareMet prepares the queries transactions ran unprepared (stmt);
// tx calls it once its transaction has given its connection back.
func (s *sqlStore) prepareMet(ctx context.Context) {
	s.met.Range(func(q, _ any) bool {
		s.met.Delete(q)
		_, err := s.on(nil).stmt(ctx, q.(string))
		return err == nil
	})
}
