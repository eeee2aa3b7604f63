package hubstore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBatchWritesFailAlone: the transactions of one batch commit
// together, and one that fails (its own error, a constraint, a caller
// gone before it began) leaves nothing while the others stay.
func TestBatchWritesFailAlone(t *testing.T) {
	ctx := context.Background()
	st, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "hub.db"))
	require.NoError(t, err)
	defer st.Close()
	s := st.(*sqlStore)
	gone, cancel := context.WithCancel(ctx)
	cancel()
	refused := errors.New("refused")
	add := func(name string, fail error) func(context.Context, *sql.Tx) error {
		return func(ctx context.Context, tx *sql.Tx) error {
			if _, err := s.on(tx).ExecContext(ctx, `INSERT INTO people (name, created_at) VALUES (?, 0)`, name); err != nil {
				return err
			}
			return fail
		}
	}
	cases := []struct {
		ctx     context.Context
		f       func(context.Context, *sql.Tx) error
		wantErr func(error) bool
	}{
		{ctx, add("ada", nil), func(err error) bool { return err == nil }},
		{ctx, add("bob", refused), func(err error) bool { return errors.Is(err, refused) }},
		{gone, add("cy", nil), func(err error) bool { return errors.Is(err, context.Canceled) }},
		{ctx, add("ada", nil), func(err error) bool { return err != nil }}, // name is UNIQUE
		{ctx, add("dee", nil), func(err error) bool { return err == nil }},
	}
	var batch []*write
	for _, c := range cases {
		batch = append(batch, &write{ctx: c.ctx, f: c.f, done: make(chan error, 1)})
	}
	s.commitBatch(batch)
	for i, c := range cases {
		err := <-batch[i].done
		assert.True(t, c.wantErr(err), "write %d: %v", i, err)
	}
	people, err := s.People(ctx)
	require.NoError(t, err)
	var names []string
	for _, p := range people {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"ada", "dee"}, names)
}
