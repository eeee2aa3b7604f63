package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", pure Go
)

// sqlitePoll is how often a SQLite store reads the event log for changes
// other processes committed on the same file (its own are woken at
// once).
const sqlitePoll = 100 * time.Millisecond

// sqliteConns bounds a SQLite store's connections: WAL readers run side by
// side, writers queue on the write lock whatever the number.
const sqliteConns = 16

// OpenSQLite opens (creating it when missing, 0600 in a 0700 directory)
// the SQLite database at path, in WAL mode, and migrates it.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("hub store: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("hub store: %w", err)
	}
	f.Close()
	// _txlock=immediate: every transaction takes the write lock when it
	// begins, so two writers queue (busy_timeout) instead of one failing
	// at its first write. synchronous=NORMAL in WAL mode: a commit is
	// durable when the process dies (SIGKILL), and the file is never
	// corrupted; an OS crash or power loss may undo the last commits
	// before a checkpoint. FULL (an fsync a commit) made one hub's writes
	// queue behind the disk: RATIONALE.md, "The hub's stores".
	dsn := path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	// Connections kept open: database/sql keeps 2 idle by default, so
	// under many waiting agents most queries opened a SQLite connection
	// (file open, WAL setup, pragmas, schema parse) and closed it again.
	db.SetMaxOpenConns(sqliteConns)
	db.SetMaxIdleConns(sqliteConns)
	s, err := openSQLStore(ctx, db, sqliteDialect)
	if err != nil {
		return nil, err
	}
	var last int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM events`).Scan(&last); err != nil {
		db.Close()
		return nil, err
	}
	// SQLite takes one writer at a time: this process runs its
	// transactions in batches, one after the other (writeBatches),
	// rather than queueing them in SQLite's busy handler, which sleeps
	// up to 100 ms between tries.
	s.writes = make(chan *write)
	s.background(s.writeBatches, func(ctx context.Context) { s.tailSQLite(ctx, last) })
	return s, nil
}

// tailSQLite wakes the watchers of asks whose events other processes
// committed: SQLite commits one writer at a time, so event ids appear in
// order and "id > last" misses none.
func (s *sqlStore) tailSQLite(ctx context.Context, last int64) {
	every(ctx, sqlitePoll, func() {
		// After a failed read the same events are read again.
		if next, err := s.wakeEvents(ctx, `e.id > ?`, last); err == nil {
			last = max(last, next)
		}
	})
}

// wakeEvents notifies the keys of the events cond selects and returns the
// greatest event id seen.
func (s *sqlStore) wakeEvents(ctx context.Context, cond string, arg int64) (int64, error) {
	rows, err := s.on(nil).QueryContext(ctx, s.d.q(`SELECT e.id, e.ask_id, g.person_id FROM events e
		JOIN asks a ON a.id = e.ask_id JOIN agents g ON g.id = a.agent_id WHERE `+cond+` ORDER BY e.id LIMIT 10000`), arg)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var last int64
	for rows.Next() {
		var id, person int64
		var ask string
		if err := rows.Scan(&id, &ask, &person); err != nil {
			return last, err
		}
		s.w.notify(AskKey(ask), PersonKey(person))
		last = id
	}
	return last, rows.Err()
}
