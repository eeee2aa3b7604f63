package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/pgtest"
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

// TestPollWakesUnannounced: on PostgreSQL, an event whose notification
// never came (its process died after the commit) wakes its watchers
// through the poll of the event log.
func TestPollWakesUnannounced(t *testing.T) {
	ctx := context.Background()
	st, err := OpenPostgres(ctx, pgtest.NewDB(t))
	require.NoError(t, err)
	defer st.Close()
	s := st.(*sqlStore)
	f, err := s.AddPerson(ctx, "ada")
	require.NoError(t, err)
	a, err := s.AddAgent(ctx, NewAgent{PersonID: f.ID, Name: "ci", TokenHash: "h1"})
	require.NoError(t, err)
	wake, stop := s.Watch(AskKey("ask_unannounced"))
	defer stop()
	// Written as a process that died before notifying would leave it.
	now := ms2(time.Now())
	_, err = s.db.ExecContext(ctx, `INSERT INTO asks (id, agent_id, session_id, tool_call_id, arguments, call, state, created_at, updated_at)
		VALUES ('ask_unannounced', $1, 's', 'c', '{}', '{}', 'pending', $2, $2)`, a.ID, now)
	require.NoError(t, err)
	_, err = s.db.ExecContext(ctx, `INSERT INTO events (ask_id, kind, who, "where", at) VALUES ('ask_unannounced', 'asked', 'ci', '', $1)`, now)
	require.NoError(t, err)
	select {
	case <-wake:
	case <-time.After(postgresPoll + 10*time.Second):
		t.Fatal("the poll did not wake the watcher of an unannounced event")
	}
}

// TestPostgresPool: a PostgreSQL store keeps pgxpool's number of
// connections (the larger of 4 and the CPUs) unless the URL's
// pool_max_conns says otherwise, and the pool_ parameters never reach the
// server as settings (which would refuse them).
func TestPostgresPool(t *testing.T) {
	ctx := context.Background()
	dsn, err := url.Parse(pgtest.NewDB(t))
	require.NoError(t, err)
	for _, tc := range []struct {
		params map[string]string
		want   int
	}{
		{nil, max(4, runtime.NumCPU())},
		{map[string]string{"pool_max_conns": "2", "pool_max_conn_idle_time": "1m"}, 2},
	} {
		u, q := *dsn, dsn.Query()
		for k, v := range tc.params {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
		st, err := OpenPostgres(ctx, u.String())
		require.NoError(t, err)
		_, err = st.AddPerson(ctx, "ada"+strconv.Itoa(tc.want))
		require.NoError(t, err, "the store works")
		assert.Equal(t, tc.want, st.(*sqlStore).db.Stats().MaxOpenConnections)
		st.Close()
	}
}
