package store_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/hub/store/storetest"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Run{M: m}) }

// opener opens Stores on the database dsn until the test ends.
func opener(t *testing.T, dsn string) storetest.Opener {
	return func() store.Store {
		s, err := store.Open(context.Background(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// TestSQLite: the store's contract on SQLite, a fresh file a test.
func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener { return opener(t, filepath.Join(t.TempDir(), "hub.db")) })
}

// TestPostgres: the store's contract on PostgreSQL, a fresh database a
// test (pgtest: a throwaway cluster, or ASKCORE_TEST_POSTGRES; each test
// SKIPs, saying why, without either).
func TestPostgres(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener { return opener(t, pgtest.NewDB(t)) })
}

func TestSQLiteFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "askcore")
	s, err := store.OpenSQLite(context.Background(), filepath.Join(dir, "hub.db"))
	require.NoError(t, err)
	defer s.Close()
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	st, err = os.Stat(filepath.Join(dir, "hub.db"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

// TestPostgresSetupHint: the errors a newcomer meets first on PostgreSQL
// (the role does not exist, the database does not exist) say what to run.
func TestPostgresSetupHint(t *testing.T) {
	base, err := url.Parse(pgtest.NewDB(t))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, user, db string
		want           []string
	}{
		{"no role", "hub_nobody", "askcore", []string{`role "hub_nobody" does not exist`, "createuser --pwprompt hub_nobody", "createdb --owner hub_nobody askcore"}},
		{"no database", base.User.Username(), "askcore_missing", []string{`database "askcore_missing" does not exist`, "createdb --owner " + base.User.Username() + " askcore_missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := *base
			if p, ok := base.User.Password(); ok && tc.user == base.User.Username() {
				u.User = url.UserPassword(tc.user, p)
			} else {
				u.User = url.User(tc.user)
			}
			u.Path = "/" + tc.db
			_, err := store.Open(context.Background(), u.String())
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
