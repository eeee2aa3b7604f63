package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// postgresPoll is how often a PostgreSQL store reads the recent event log
// as a backstop for notifications lost while its LISTEN connection was
// down; postgresPollWindow is how far back it reads (commits of
// concurrent transactions are not in id order, and replicas' clocks
// differ a little).
const (
	postgresPoll       = 2 * time.Second
	postgresPollWindow = 10 * time.Second
)

// OpenPostgres connects to the PostgreSQL database at url, migrates it
// (one process at a time) and listens for the wake-ups of every process
// sharing it.
//
// A process keeps at most pool_max_conns connections (a parameter of url
// as for pgxpool, with pool_max_conn_lifetime and pool_max_conn_idle_time;
// by default pgxpool's: the larger of 4 and the number of CPUs, 1 hour, 30
// minutes), besides the one it listens on. Few connections are faster: every
// backend is a process competing for the same cores, and with 20 a
// process the wake-ups of two replicas on two cores took 10 times longer
// at p99 (BENCHMARKS.md, "The hub"). A long poll holds none while it
// waits.
func OpenPostgres(ctx context.Context, url string) (Store, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg := pcfg.ConnConfig
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(int(pcfg.MaxConns))
	db.SetMaxIdleConns(int(pcfg.MaxConns))
	db.SetConnMaxLifetime(pcfg.MaxConnLifetime)
	db.SetConnMaxIdleTime(pcfg.MaxConnIdleTime)
	s, err := openSQLStore(ctx, db, postgresDialect)
	if err != nil {
		return nil, setupHint(err, cfg)
	}
	s.background(func(ctx context.Context) { s.listen(ctx, cfg) }, s.pollPostgres)
	return s, nil
}

// setupHint adds to the errors a newcomer meets first (no role, no
// database: PostgreSQL's 28000 and 3D000) the commands that create what
// is missing, run as PostgreSQL's superuser.
func setupHint(err error, cfg *pgx.ConnConfig) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "28000": // invalid_authorization_specification: the role does not exist
		return fmt.Errorf("%w\ncreate the role and its database (as PostgreSQL's superuser):\n  sudo -u postgres createuser --pwprompt %s\n  sudo -u postgres createdb --owner %s %s",
			err, cfg.User, cfg.User, cfg.Database)
	case "3D000": // invalid_catalog_name: the database does not exist
		return fmt.Errorf("%w\ncreate the database (as PostgreSQL's superuser):\n  sudo -u postgres createdb --owner %s %s", err, cfg.User, cfg.Database)
	}
	return err
}

// listen holds a LISTEN connection and passes its notifications to the
// watchers; it reconnects with a capped backoff, and wakes every watcher
// after a reconnection (a notification sent meanwhile is lost).
func (s *sqlStore) listen(ctx context.Context, cfg *pgx.ConnConfig) {
	backoff := 50 * time.Millisecond
	lost := false
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyChannel)
		}
		if err == nil {
			backoff = 50 * time.Millisecond
			if lost {
				s.w.notifyAll()
			}
			for {
				n, werr := conn.WaitForNotification(ctx)
				if werr != nil {
					break
				}
				s.w.notify(n.Payload)
			}
		}
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = conn.Close(closeCtx)
			cancel()
		}
		lost = true
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// pollPostgres is the backstop of listen: it wakes the watchers of the
// events of the last postgresPollWindow it has not seen yet, each event
// once (waking them at every poll made every waiting agent read its ask
// again every poll).
func (s *sqlStore) pollPostgres(ctx context.Context) {
	seen := map[int64]int64{} // event id: its time, within the window
	every(ctx, postgresPoll, func() {
		since := ms2(time.Now().Add(-postgresPollWindow))
		rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT e.id, e.at, e.ask_id, g.person_id FROM events e
			JOIN asks a ON a.id = e.ask_id JOIN agents g ON g.id = a.agent_id WHERE e.at >= ? ORDER BY e.id LIMIT 10000`), since)
		if err != nil {
			return
		}
		defer rows.Close()
		for rows.Next() {
			var id, at, person int64
			var ask string
			if rows.Scan(&id, &at, &ask, &person) != nil {
				return
			}
			if _, ok := seen[id]; !ok {
				seen[id] = at
				s.w.notify(AskKey(ask), PersonKey(person))
			}
		}
		for id, at := range seen {
			if at < since {
				delete(seen, id)
			}
		}
	})
}
