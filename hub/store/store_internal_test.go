package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"
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

// TestPostgresPool: a PostgreSQL store keeps by default the larger of 4
// and the CPUs as its number of connections, unless the URL's
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

// TestPostgresURL: the pool's parameters are read from the URL and taken
// out of what lib/pq connects with, a bad one is an error naming it, the
// sslmode is libpq's default (prefer) unless named, and only postgres://
// URLs are taken, their password never repeated in an error.
func TestPostgresURL(t *testing.T) {
	unsetenv(t, "PGSSLMODE")
	p, err := parsePostgresURL("postgres://hub:secret@db.internal/askcore?application_name=hub")
	require.NoError(t, err)
	assert.Equal(t, max(4, runtime.NumCPU()), p.maxConns)
	assert.Equal(t, time.Hour, p.maxConnLifetime)
	assert.Equal(t, 30*time.Minute, p.maxConnIdleTime)
	assert.Equal(t, pq.SSLModePrefer, p.cfg.SSLMode)
	assert.Equal(t, "postgres://hub:secret@db.internal/askcore?application_name=hub&sslmode=prefer", p.dsn)

	p, err = parsePostgresURL("postgresql://hub@db.internal/askcore?pool_max_conns=2&pool_max_conn_lifetime=5m&pool_max_conn_idle_time=1m&sslmode=verify-full&search_path=hub")
	require.NoError(t, err)
	assert.Equal(t, 2, p.maxConns)
	assert.Equal(t, 5*time.Minute, p.maxConnLifetime)
	assert.Equal(t, time.Minute, p.maxConnIdleTime)
	assert.Equal(t, pq.SSLModeVerifyFull, p.cfg.SSLMode)
	assert.Equal(t, map[string]string{"search_path": "hub"}, p.cfg.Runtime, "the server's settings")
	assert.Equal(t, "postgresql://hub@db.internal/askcore?search_path=hub&sslmode=verify-full", p.dsn)

	p, err = parsePostgresURL("postgres://?host=%2Ftmp%2Fpg&dbname=askcore")
	require.NoError(t, err)
	assert.Equal(t, "/tmp/pg", p.cfg.Host)
	assert.Equal(t, "askcore", p.cfg.Database)
	assert.Equal(t, pq.SSLModeDisable, p.cfg.SSLMode, "a Unix socket has no TLS")

	for _, tc := range []struct{ url, want string }{
		{"postgres://db/askcore?pool_max_conns=0", `pool_max_conns="0"`},
		{"postgres://db/askcore?pool_max_conns=many", `pool_max_conns="many"`},
		{"postgres://db/askcore?pool_max_conn_lifetime=1day", `pool_max_conn_lifetime="1day"`},
		{"postgres://db/askcore?pool_max_conn_idle_time=-", `pool_max_conn_idle_time="-"`},
		{"host=db dbname=askcore", "postgres:// or postgresql:// URL"},
		{"postgres://hub:secret@db:port/askcore", "invalid port"},
	} {
		_, err := parsePostgresURL(tc.url)
		require.Error(t, err, tc.url)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), "secret")
	}
}

// TestPostgresSetupHintFromEnv: without a user or a database in the URL,
// the hint names the user lib/pq took from PGUSER and the database
// PostgreSQL then takes, the user's.
func TestPostgresSetupHintFromEnv(t *testing.T) {
	u, err := url.Parse(pgtest.NewDB(t))
	require.NoError(t, err)
	u.User, u.Path = nil, ""
	t.Setenv("PGUSER", "hub_envrole")
	unsetenv(t, "PGDATABASE")
	_, err = OpenPostgres(context.Background(), u.String())
	require.Error(t, err)
	for _, w := range []string{`role "hub_envrole" does not exist`, "createuser --pwprompt hub_envrole", "createdb --owner hub_envrole hub_envrole"} {
		assert.Contains(t, err.Error(), w)
	}
}

// TestListenReconnects: a PostgreSQL store whose LISTEN connection is
// lost connects again, wakes every watcher (a notification may have been
// lost meanwhile), and hears the notifications sent after.
func TestListenReconnects(t *testing.T) {
	ctx := context.Background()
	st, err := OpenPostgres(ctx, pgtest.NewDB(t))
	require.NoError(t, err)
	defer st.Close()
	s := st.(*sqlStore)
	idle, stopIdle := s.Watch(AskKey("ask_idle"))
	defer stopIdle()
	var killed int
	require.NoError(t, s.db.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&killed))
	require.Equal(t, 1, killed, "the listener's backend")
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("no watcher woken after the listener reconnected")
	}
	one, stopOne := s.Watch(AskKey("ask_one"))
	defer stopOne()
	_, err = s.db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, AskKey("ask_one"))
	require.NoError(t, err)
	select {
	case <-one:
	case <-time.After(10 * time.Second):
		t.Fatal("the notification sent after the reconnection was not heard")
	}
}

// TestPostgresPrepareInTransactions: transactions holding every
// connection of the pool, each meeting a query not prepared yet, finish
// (preparing it took a connection none would give back); the query is
// prepared after them, and runs prepared in the transactions after.
func TestPostgresPrepareInTransactions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u, err := url.Parse(pgtest.NewDB(t))
	require.NoError(t, err)
	q := u.Query()
	q.Set("pool_max_conns", "2")
	u.RawQuery = q.Encode()
	st, err := OpenPostgres(ctx, u.String())
	require.NoError(t, err)
	defer st.Close()
	s := st.(*sqlStore)
	const query = `SELECT count(*) FROM people WHERE id > $1`
	run := func(txs int) {
		var holding sync.WaitGroup
		holding.Add(txs)
		errs := make(chan error, txs)
		for range txs {
			go func() {
				errs <- s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
					holding.Done()
					holding.Wait() // every transaction holds a connection
					var n int
					return s.on(tx).QueryRowContext(ctx, query, 0).Scan(&n)
				})
			}()
		}
		for range txs {
			require.NoError(t, <-errs)
		}
	}
	run(2)
	_, prepared := s.stmts.Load(query)
	assert.True(t, prepared)
	run(2)
}

// unsetenv unsets the environment variables keys until t ends.
func unsetenv(t *testing.T, keys ...string) {
	for _, k := range keys {
		t.Setenv(k, "") // restores the variable at the end
		require.NoError(t, os.Unsetenv(k))
	}
}
