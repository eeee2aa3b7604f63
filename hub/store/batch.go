package store

import (
	"context"
	"database/sql"
	"errors"
)

// maxBatch bounds the transactions one commit of writeBatches holds.
const maxBatch = 128

// errClosed is a write that came after Close.
var errClosed = errors.New("hub store: the store is closed")

// write is one transaction of a batch, and where its outcome goes once
// the batch committed.
type write struct {
	ctx  context.Context
	f    func(context.Context, *sql.Tx) error
	done chan error
}

// batched runs f in the next batch of writeBatches and waits for its
// commit.
func (s *sqlStore) batched(ctx context.Context, f func(context.Context, *sql.Tx) error) error {
	w := &write{ctx: ctx, f: f, done: make(chan error, 1)}
	select {
	case s.writes <- w:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing:
		return errClosed
	}
	// Once taken, a write is always answered: the batch runs to its end.
	return <-w.done
}

// writeBatches is a SQLite store's one writer: it takes the transactions
// waiting when it is free and commits them together, each in a savepoint
// of one transaction so that one failing leaves the others. SQLite
// commits one writer at a time; one commit a transaction (each
// rewriting the same table and index pages) capped a hub at some 1,500
// writes a second on two cores, and a reply waited behind a queue of
// others for most of its latency (BENCHMARKS.md, "The hub"). A batch
// adds no wait: it holds what queued while the previous one committed.
func (s *sqlStore) writeBatches(ctx context.Context) {
	for {
		var batch []*write
		select {
		case <-ctx.Done():
			return
		case w := <-s.writes:
			batch = append(batch, w)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case w := <-s.writes:
				batch = append(batch, w)
			default:
				break more
			}
		}
		s.commitBatch(batch)
	}
}

// commitBatch runs batch in one transaction and answers each write: its
// own error, or the commit's.
func (s *sqlStore) commitBatch(batch []*write) {
	errs := make([]error, len(batch))
	err := func() error {
		// Not the writes' contexts: one going away must not roll back
		// the others.
		tx, err := s.db.BeginTx(context.Background(), nil)
		if err != nil {
			return err
		}
		for i, w := range batch {
			if errs[i] = w.ctx.Err(); errs[i] != nil {
				continue // its caller went away before it began
			}
			if _, err := tx.Exec(`SAVEPOINT write`); err != nil {
				_ = tx.Rollback()
				return err
			}
			errs[i] = w.f(context.WithoutCancel(w.ctx), tx)
			end := []string{`RELEASE write`}
			if errs[i] != nil {
				end = []string{`ROLLBACK TO write`, `RELEASE write`}
			}
			for _, q := range end {
				if _, err := tx.Exec(q); err != nil {
					_ = tx.Rollback()
					return err
				}
			}
		}
		return tx.Commit()
	}()
	for i, w := range batch {
		if err != nil {
			errs[i] = err
		}
		w.done <- errs[i]
	}
}
