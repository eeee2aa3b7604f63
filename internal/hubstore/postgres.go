package hubstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
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
func OpenPostgres(ctx context.Context, url string) (Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	s, err := openSQLStore(ctx, db, postgresDialect)
	if err != nil {
		return nil, err
	}
	s.background(func(ctx context.Context) { s.listen(ctx, cfg) }, s.pollPostgres)
	return s, nil
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

// pollPostgres is the backstop of listen.
func (s *sqlStore) pollPostgres(ctx context.Context) {
	every(ctx, postgresPoll, func() {
		_, _ = s.wakeEvents(ctx, `e.at >= ?`, ms2(time.Now().Add(-postgresPollWindow)))
	})
}
