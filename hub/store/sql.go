package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// sqlStore is the Store of both dialects, over database/sql.
type sqlStore struct {
	db *sql.DB
	d  dialect
	w  *watchers
	// writes takes this process's transactions to writeBatches (SQLite;
	// nil on PostgreSQL); closing is closed when the store closes.
	writes  chan *write
	closing <-chan struct{}
	// stmts: query text to its *sql.Stmt (runner); met: the queries a
	// transaction ran unprepared, to prepare after it.
	stmts, met sync.Map

	closeOnce sync.Once
	stop      context.CancelFunc // ends the background goroutines
	done      sync.WaitGroup
}

// openSQLStore is the store of d over db, migrated; on an error db is
// closed.
func openSQLStore(ctx context.Context, db *sql.DB, d dialect) (*sqlStore, error) {
	s := &sqlStore{db: db, d: d, w: newWatchers()}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// background runs each of fs in its own goroutine until Close, which
// cancels their context and waits for them.
func (s *sqlStore) background(fs ...func(context.Context)) {
	ctx, stop := context.WithCancel(context.Background())
	s.stop, s.closing = stop, ctx.Done()
	for _, f := range fs {
		s.done.Add(1)
		go func() {
			defer s.done.Done()
			f(ctx)
		}()
	}
}

// migrate applies the migrations the database lacks, in one transaction.
func (s *sqlStore) migrate(ctx context.Context) error {
	ms, err := s.d.migrations()
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if s.d.lockMigrations != "" {
			if _, err := tx.ExecContext(ctx, s.d.lockMigrations); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
			return err
		}
		versions, err := queryAll(ctx, tx, `SELECT version FROM schema_migrations`, scanValue[int])
		if err != nil {
			return err
		}
		applied := map[int]bool{}
		for _, v := range versions {
			applied[v] = true
		}
		for _, m := range ms {
			if applied[m.version] {
				continue
			}
			for _, st := range m.statements {
				if _, err := tx.ExecContext(ctx, st); err != nil {
					return fmt.Errorf("hub store: migration %d: %w", m.version, err)
				}
			}
			if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), m.version, ms2(time.Now())); err != nil {
				return err
			}
		}
		return nil
	})
}

// tx runs f in a transaction and returns once it committed; f's ctx is
// tx's, or, in a batch, the same without its cancellation (the batch's
// other transactions must not be interrupted).
func (s *sqlStore) tx(ctx context.Context, f func(context.Context, *sql.Tx) error) error {
	if s.writes != nil {
		return s.batched(ctx, f)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err = f(ctx, tx); err != nil {
		_ = tx.Rollback()
	} else {
		err = tx.Commit()
	}
	s.prepareMet(ctx)
	return err
}

func (s *sqlStore) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.on(nil).ExecContext(ctx, s.d.q(q), args...)
}

// rowScanner is one row of a query: *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(...any) error }

// querier runs queries: the database, or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs query (placeholders already the dialect's) and returns
// every row, read with scan; the rows are closed when it returns, so a
// transaction may go on with its next statement.
func queryAll[T any](ctx context.Context, db querier, query string, scan func(rowScanner) (T, error), args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanValue reads a row of one column.
func scanValue[T any](row rowScanner) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}

// every runs f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

func (s *sqlStore) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.stop != nil {
			s.stop()
		}
		s.done.Wait()
		s.w.closeAll()
		s.closeStmts()
		err = s.db.Close()
	})
	return err
}

// Times are Unix milliseconds in the database.
func ms2(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64)
}

func nullMS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

func nullText(b []byte) sql.NullString {
	if b == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: string(b), Valid: true}
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// People.

func (s *sqlStore) AddPerson(ctx context.Context, name string) (Person, error) {
	p := Person{Name: name, CreatedAt: time.UnixMilli(ms2(time.Now()))}
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`INSERT INTO people (name, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING id`),
		name, ms2(p.CreatedAt)).Scan(&p.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return Person{}, ErrExists
	}
	return p, err
}

const personColumns = `id, name, created_at`

func scanPerson(row rowScanner) (Person, error) {
	var p Person
	var at sql.NullInt64
	err := row.Scan(&p.ID, &p.Name, &at)
	p.CreatedAt = fromMS(at)
	return p, notFound(err)
}

func (s *sqlStore) Person(ctx context.Context, id int64) (Person, error) {
	return scanPerson(s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT `+personColumns+` FROM people WHERE id = ?`), id))
}

func (s *sqlStore) PersonByName(ctx context.Context, name string) (Person, error) {
	return scanPerson(s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT `+personColumns+` FROM people WHERE name = ?`), name))
}

func (s *sqlStore) People(ctx context.Context) ([]Person, error) {
	return queryAll(ctx, s.on(nil), `SELECT `+personColumns+` FROM people ORDER BY id`, scanPerson)
}

// Agents.

const agentColumns = `id, person_id, name, token_hash, deadline_seconds, created_at, revoked_at`

func scanAgent(row rowScanner) (Agent, error) {
	var a Agent
	var deadline, created, revoked sql.NullInt64
	err := row.Scan(&a.ID, &a.PersonID, &a.Name, &a.TokenHash, &deadline, &created, &revoked)
	a.Deadline = time.Duration(deadline.Int64) * time.Second
	a.CreatedAt, a.RevokedAt = fromMS(created), fromMS(revoked)
	return a, notFound(err)
}

func (s *sqlStore) AddAgent(ctx context.Context, n NewAgent) (Agent, error) {
	a := Agent{PersonID: n.PersonID, Name: n.Name, TokenHash: n.TokenHash, Deadline: n.Deadline.Truncate(time.Second), CreatedAt: time.UnixMilli(ms2(time.Now()))}
	var deadline sql.NullInt64
	if a.Deadline > 0 {
		deadline = sql.NullInt64{Int64: int64(a.Deadline / time.Second), Valid: true}
	}
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`INSERT INTO agents (person_id, name, token_hash, deadline_seconds, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`),
		n.PersonID, n.Name, n.TokenHash, deadline, ms2(a.CreatedAt)).Scan(&a.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, ErrExists
	}
	return a, err
}

func (s *sqlStore) AgentByName(ctx context.Context, name string) (Agent, error) {
	return scanAgent(s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT `+agentColumns+` FROM agents WHERE name = ?`), name))
}

func (s *sqlStore) AgentByTokenHash(ctx context.Context, hash string) (Agent, error) {
	return scanAgent(s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT `+agentColumns+` FROM agents WHERE token_hash = ?`), hash))
}

func (s *sqlStore) Agents(ctx context.Context) ([]Agent, error) {
	return queryAll(ctx, s.on(nil), `SELECT `+agentColumns+` FROM agents ORDER BY id`, scanAgent)
}

func (s *sqlStore) RevokeAgent(ctx context.Context, name string, at time.Time) (Agent, error) {
	// A token revoked twice keeps its first revocation time.
	if _, err := s.exec(ctx, `UPDATE agents SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL`, ms2(at), name); err != nil {
		return Agent{}, err
	}
	return s.AgentByName(ctx, name)
}

// Asks.

const askColumns = `a.id, a.agent_id, g.name, g.person_id, a.session_id, a.tool_call_id, a.arguments, a.call, a.state,
	a.reply, a.replied_by, a.replied_where, a.created_at, a.updated_at, a.expires_at, a.waiting_until`

const askFrom = ` FROM asks a JOIN agents g ON g.id = a.agent_id`

func scanAsk(row rowScanner) (Ask, error) {
	var a Ask
	var call string
	var reply, by, where sql.NullString
	var created, updated, expires, waiting sql.NullInt64
	err := row.Scan(&a.ID, &a.AgentID, &a.AgentName, &a.PersonID, &a.SessionID, &a.ToolCallID, &a.Arguments, &call, &a.State,
		&reply, &by, &where, &created, &updated, &expires, &waiting)
	if err != nil {
		return Ask{}, notFound(err)
	}
	a.Call = json.RawMessage(call)
	if reply.Valid {
		a.Reply = json.RawMessage(reply.String)
	}
	a.RepliedBy, a.RepliedWhere = by.String, where.String
	a.CreatedAt, a.UpdatedAt, a.ExpiresAt = fromMS(created), fromMS(updated), fromMS(expires)
	a.WaitingUntil = fromMS(waiting)
	if a.WaitingUntil.IsZero() {
		a.WaitingUntil = a.CreatedAt // the program that asked waited then
	}
	return a, nil
}

func (s *sqlStore) MarkWaiting(ctx context.Context, id string, until time.Time) error {
	_, err := s.on(nil).ExecContext(ctx, s.d.q(`UPDATE asks SET waiting_until = ? WHERE id = ? AND state = 'pending'`), ms2(until), id)
	return err
}

// newAskID is 128 random bits: an ask's id tells nothing and cannot be
// guessed.
func newAskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "ask_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

func (s *sqlStore) CreateAsk(ctx context.Context, n NewAsk) (Ask, bool, error) {
	id := newAskID()
	at := ms2(n.At)
	var created bool
	var personID int64
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The person comes back with the row (one round trip fewer on
		// PostgreSQL); no row: the call was asked before.
		err := s.on(tx).QueryRowContext(ctx, s.d.q(`INSERT INTO asks (id, agent_id, session_id, tool_call_id, arguments, call, state, created_at, updated_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (agent_id, session_id, tool_call_id) DO NOTHING
			RETURNING (SELECT person_id FROM agents WHERE agents.id = asks.agent_id)`),
			id, n.AgentID, n.SessionID, n.ToolCallID, n.Arguments, string(n.Call), at, at, nullMS(n.ExpiresAt)).Scan(&personID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		created = true
		if err := s.addEvent(ctx, tx, id, EventAsked, n.Who, "", at, nil); err != nil {
			return err
		}
		if err := s.enqueueAsked(ctx, tx, personID, id, at); err != nil {
			return err
		}
		return s.notifyTx(ctx, tx, AskKey(id), PersonKey(personID))
	})
	if err != nil {
		return Ask{}, false, err
	}
	if created {
		s.w.notify(AskKey(id), PersonKey(personID))
		a, err := s.Ask(ctx, id)
		return a, true, err
	}
	a, err := scanAsk(s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT `+askColumns+askFrom+` WHERE a.agent_id = ? AND a.session_id = ? AND a.tool_call_id = ?`),
		n.AgentID, n.SessionID, n.ToolCallID))
	if err != nil {
		return Ask{}, false, err
	}
	if a.Arguments != n.Arguments {
		return a, false, ErrConflict
	}
	return a, false, nil
}

func (s *sqlStore) Ask(ctx context.Context, id string) (Ask, error) {
	return scanAsk(s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT `+askColumns+askFrom+` WHERE a.id = ?`), id))
}

func (s *sqlStore) Asks(ctx context.Context, f AskFilter) ([]Ask, error) {
	q := `SELECT ` + askColumns + askFrom + ` WHERE g.person_id = ?`
	args := []any{f.PersonID}
	if f.State != "" {
		cond, arg := stateIs("a.state", f.State)
		q += ` AND ` + cond
		args = append(args, arg...)
	}
	q += ` ORDER BY a.created_at DESC, a.id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return queryAll(ctx, s.on(nil), s.d.q(q), scanAsk, args...)
}

// stateIs is the condition column = st: a state of the four written as a
// literal, since SQLite plans a query again at every run when a parameter
// compares with the column of a partial index (asks_pending_expiry), so a
// prepared statement with one was parsed anew each time.
func stateIs(column string, st State) (cond string, args []any) {
	switch st {
	case StatePending, StateReplied, StateWithdrawn, StateExpired:
		return column + " = '" + string(st) + "'", nil
	}
	return column + " = ?", []any{string(st)}
}

func (s *sqlStore) CountAsks(ctx context.Context, state State) (int, error) {
	var n int
	cond, arg := stateIs("state", state)
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM asks WHERE `+cond), arg...).Scan(&n)
	return n, err
}

func (s *sqlStore) Reply(ctx context.Context, t Transition) (Ask, bool, error) {
	return s.transition(ctx, t, StateReplied, EventReplied)
}

func (s *sqlStore) Withdraw(ctx context.Context, t Transition) (Ask, bool, error) {
	return s.transition(ctx, t, StateWithdrawn, EventWithdrawn)
}

// transition moves a pending ask to state, with its event, in one
// transaction: the conditional UPDATE lets exactly one transition win.
func (s *sqlStore) transition(ctx context.Context, t Transition, state State, kind EventKind) (Ask, bool, error) {
	var won bool
	var personID int64
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The conditional UPDATE returns the person when it won (one round
		// trip fewer on PostgreSQL than reading it after); no row: lost.
		const person = ` RETURNING (SELECT person_id FROM agents WHERE agents.id = asks.agent_id)`
		var err error
		if state == StateReplied {
			err = s.on(tx).QueryRowContext(ctx, s.d.q(`UPDATE asks SET state = ?, reply = ?, replied_by = ?, replied_where = ?, updated_at = ? WHERE id = ? AND state = 'pending'`+person),
				string(state), string(t.Reply), t.Who, t.Where, ms2(t.At), t.AskID).Scan(&personID)
		} else {
			// A withdrawal keeps where the person answered instead, when
			// another surface of the agent got the answer.
			err = s.on(tx).QueryRowContext(ctx, s.d.q(`UPDATE asks SET state = ?, replied_where = ?, updated_at = ? WHERE id = ? AND state = 'pending'`+person),
				string(state), t.Where, ms2(t.At), t.AskID).Scan(&personID)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		won = true
		var detail json.RawMessage
		if state == StateReplied {
			detail = t.Reply
		}
		if err := s.addEvent(ctx, tx, t.AskID, kind, t.Who, t.Where, ms2(t.At), detail); err != nil {
			return err
		}
		return s.notifyTx(ctx, tx, AskKey(t.AskID), PersonKey(personID))
	})
	if err != nil {
		return Ask{}, false, err
	}
	if won {
		s.w.notify(AskKey(t.AskID), PersonKey(personID))
	}
	// After the commit: the winner's outcome, whoever won.
	a, err := s.Ask(ctx, t.AskID)
	return a, won, err
}

func (s *sqlStore) ExpireDue(ctx context.Context, now time.Time) ([]Ask, error) {
	ids, err := queryAll(ctx, s.on(nil), s.d.q(`SELECT id FROM asks WHERE state = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at`), scanValue[string], ms2(now))
	if err != nil {
		return nil, err
	}
	var out []Ask
	for _, id := range ids {
		a, won, err := s.transition(ctx, Transition{AskID: id, Who: "deadline", At: now}, StateExpired, EventExpired)
		if err != nil {
			return out, err
		}
		if won {
			out = append(out, a)
		}
	}
	return out, nil
}

func (s *sqlStore) addEvent(ctx context.Context, tx *sql.Tx, askID string, kind EventKind, who, where string, at int64, detail json.RawMessage) error {
	_, err := s.on(tx).ExecContext(ctx, s.d.q(`INSERT INTO events (ask_id, kind, who, "where", at, detail) VALUES (?, ?, ?, ?, ?, ?)`),
		askID, string(kind), who, where, at, nullText(detail))
	return err
}

// notifyTx sends the wake-ups of keys with the transaction's commit, to
// every process (PostgreSQL), in one statement.
func (s *sqlStore) notifyTx(ctx context.Context, tx *sql.Tx, keys ...string) error {
	if s.d.notifyCall == "" || len(keys) == 0 {
		return nil
	}
	calls := make([]string, len(keys))
	args := make([]any, len(keys))
	for i, k := range keys {
		calls[i], args[i] = s.d.notifyCall, k
	}
	_, err := s.on(tx).ExecContext(ctx, s.d.q("SELECT "+strings.Join(calls, ", ")), args...)
	return err
}

func (s *sqlStore) Events(ctx context.Context, f EventFilter) ([]Event, error) {
	q := `SELECT e.id, e.ask_id, e.kind, e.who, e."where", e.at, e.detail FROM events e`
	var where []string
	var args []any
	if f.PersonID != 0 {
		q += ` JOIN asks a ON a.id = e.ask_id JOIN agents g ON g.id = a.agent_id`
		where = append(where, `g.person_id = ?`)
		args = append(args, f.PersonID)
	}
	if f.AskID != "" {
		where = append(where, `e.ask_id = ?`)
		args = append(args, f.AskID)
	}
	if f.AfterID != 0 {
		where = append(where, `e.id > ?`)
		args = append(args, f.AfterID)
	}
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY e.id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return queryAll(ctx, s.on(nil), s.d.q(q), scanEvent, args...)
}

func scanEvent(row rowScanner) (Event, error) {
	var e Event
	var at int64
	var detail sql.NullString
	err := row.Scan(&e.ID, &e.AskID, &e.Kind, &e.Who, &e.Where, &at, &detail)
	e.At = time.UnixMilli(at)
	if detail.Valid {
		e.Detail = json.RawMessage(detail.String)
	}
	return e, err
}

func (s *sqlStore) Watch(key string) (<-chan struct{}, func()) { return s.w.watch(key) }

// Sign-in links.

func (s *sqlStore) CreateSigninLink(ctx context.Context, l SigninLink) error {
	_, err := s.exec(ctx, `INSERT INTO signin_links (token_hash, person_id, expires_at) VALUES (?, ?, ?)`, l.TokenHash, l.PersonID, ms2(l.ExpiresAt))
	return err
}

func (s *sqlStore) SigninLink(ctx context.Context, hash string) (SigninLink, error) {
	l := SigninLink{TokenHash: hash}
	var expires int64
	var used sql.NullInt64
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT person_id, expires_at, used_at FROM signin_links WHERE token_hash = ?`), hash).Scan(&l.PersonID, &expires, &used)
	l.ExpiresAt, l.UsedAt = time.UnixMilli(expires), fromMS(used)
	return l, notFound(err)
}

func (s *sqlStore) ConsumeSigninLink(ctx context.Context, hash string, now time.Time) (int64, error) {
	var person int64
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`UPDATE signin_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING person_id`),
		ms2(now), hash, ms2(now)).Scan(&person)
	return person, notFound(err)
}

// Browser sessions.

func (s *sqlStore) CreateWebSession(ctx context.Context, w WebSession) error {
	_, err := s.exec(ctx, `INSERT INTO web_sessions (token_hash, person_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		w.TokenHash, w.PersonID, w.CSRFToken, ms2(w.CreatedAt), ms2(w.ExpiresAt))
	return err
}

func (s *sqlStore) WebSession(ctx context.Context, hash string, now time.Time) (WebSession, error) {
	w := WebSession{TokenHash: hash}
	var created, expires int64
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT person_id, csrf_token, created_at, expires_at FROM web_sessions WHERE token_hash = ? AND expires_at > ?`),
		hash, ms2(now)).Scan(&w.PersonID, &w.CSRFToken, &created, &expires)
	w.CreatedAt, w.ExpiresAt = time.UnixMilli(created), time.UnixMilli(expires)
	return w, notFound(err)
}

func (s *sqlStore) DeleteWebSession(ctx context.Context, hash string) error {
	_, err := s.exec(ctx, `DELETE FROM web_sessions WHERE token_hash = ?`, hash)
	return err
}

// Outbox.

func (s *sqlStore) EnqueueOutbox(ctx context.Context, kind string, payload json.RawMessage, at time.Time) (int64, error) {
	var id int64
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`INSERT INTO outbox (kind, payload, next_at) VALUES (?, ?, ?) RETURNING id`), kind, string(payload), ms2(at)).Scan(&id)
	return id, err
}

// outboxDue selects the outbox items due at a time, up to a limit.
const outboxDue = `SELECT id, kind, payload, attempts, next_at FROM outbox WHERE delivered_at IS NULL AND next_at <= ? ORDER BY next_at, id LIMIT ?`

func scanOutbox(row rowScanner) (OutboxItem, error) {
	var o OutboxItem
	var payload string
	var next int64
	err := row.Scan(&o.ID, &o.Kind, &payload, &o.Attempts, &next)
	o.Payload, o.NextAt = json.RawMessage(payload), time.UnixMilli(next)
	return o, err
}

func (s *sqlStore) DueOutbox(ctx context.Context, now time.Time, limit int) ([]OutboxItem, error) {
	return queryAll(ctx, s.on(nil), s.d.q(outboxDue), scanOutbox, ms2(now), limit)
}

// enqueueAsked writes an outbox row for each of the person's targets, in
// the ask's transaction: a new ask is notified even if the process dies
// right after the commit.
func (s *sqlStore) enqueueAsked(ctx context.Context, tx *sql.Tx, personID int64, askID string, at int64) error {
	ids, err := queryAll(ctx, s.on(tx), s.d.q(`SELECT id FROM notify_targets WHERE person_id = ? ORDER BY id`), scanValue[int64], personID)
	if err != nil {
		return err
	}
	for _, t := range ids {
		p, _ := json.Marshal(AskedPayload{TargetID: t, AskID: askID})
		if _, err := s.on(tx).ExecContext(ctx, s.d.q(`INSERT INTO outbox (kind, payload, next_at) VALUES (?, ?, ?)`), OutboxAsked, string(p), at); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqlStore) ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]OutboxItem, error) {
	lock := ""
	if s.d.name == "postgres" {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var out []OutboxItem
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if out, err = queryAll(ctx, s.on(tx), s.d.q(outboxDue+lock), scanOutbox, ms2(now), limit); err != nil {
			return err
		}
		for _, o := range out {
			if _, err := s.on(tx).ExecContext(ctx, s.d.q(`UPDATE outbox SET next_at = ? WHERE id = ?`), ms2(now.Add(lease)), o.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// Notification targets.

const targetColumns = `id, person_id, kind, url, secret, settings, created_at`

func scanTarget(r rowScanner) (NotifyTarget, error) {
	var t NotifyTarget
	var created int64
	var settings string
	if err := r.Scan(&t.ID, &t.PersonID, &t.Kind, &t.URL, &t.Secret, &settings, &created); err != nil {
		return NotifyTarget{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(settings), &t.Settings); err != nil {
		return NotifyTarget{}, fmt.Errorf("hub store: notification target %d: settings: %w", t.ID, err)
	}
	t.CreatedAt = time.UnixMilli(created)
	return t, nil
}

func (s *sqlStore) AddNotifyTarget(ctx context.Context, t NotifyTarget) (NotifyTarget, error) {
	t.CreatedAt = time.UnixMilli(ms2(time.Now()))
	settings, err := json.Marshal(t.Settings)
	if err != nil {
		return NotifyTarget{}, err
	}
	err = s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.on(tx).QueryRowContext(ctx, s.d.q(`INSERT INTO notify_targets (person_id, kind, url, secret, settings, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`),
			t.PersonID, t.Kind, t.URL, t.Secret, string(settings), ms2(t.CreatedAt)).Scan(&t.ID)
	})
	return t, err
}

func (s *sqlStore) NotifyTarget(ctx context.Context, id int64) (NotifyTarget, error) {
	return scanTarget(s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT `+targetColumns+` FROM notify_targets WHERE id = ?`), id))
}

func (s *sqlStore) NotifyTargets(ctx context.Context, personID int64) ([]NotifyTarget, error) {
	return queryAll(ctx, s.on(nil), s.d.q(`SELECT `+targetColumns+` FROM notify_targets WHERE ? = 0 OR person_id = ? ORDER BY id`), scanTarget, personID, personID)
}

func (s *sqlStore) RemoveNotifyTarget(ctx context.Context, id int64) error {
	var n int64
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := s.on(tx).ExecContext(ctx, s.d.q(`DELETE FROM notify_targets WHERE id = ?`), id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

func (s *sqlStore) MarkOutbox(ctx context.Context, id int64, delivered bool, next time.Time) error {
	if delivered {
		_, err := s.exec(ctx, `UPDATE outbox SET attempts = attempts + 1, delivered_at = ? WHERE id = ? AND delivered_at IS NULL`, ms2(next), id)
		return err
	}
	_, err := s.exec(ctx, `UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ? AND delivered_at IS NULL`, ms2(next), id)
	return err
}
