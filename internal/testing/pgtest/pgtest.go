// Package pgtest gives tests a real PostgreSQL: the server named by
// ASKCORE_TEST_POSTGRES (a postgres:// URL; sslmode=disable in it for a
// server without TLS, lib/pq's default being require), or else a
// throwaway cluster that Main starts with Debian's initdb and pg_ctl in a
// temporary directory (as the postgres user when the tests run as root:
// PostgreSQL refuses to run as root), listening on a Unix socket only.
// Each test gets a database of its own (NewDB).
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/lib/pq"

	"github.com/askcore/askcore/internal/testing/missing"
)

// EnvURL names a PostgreSQL server to use instead of a throwaway cluster.
const EnvURL = "ASKCORE_TEST_POSTGRES"

var (
	admin   string // URL of the server's postgres database; "" when none
	skipWhy string
	dbSeq   atomic.Int64
)

// binDirs are where Debian puts initdb and pg_ctl.
var binDirs = []string{"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"}

// Run is m, whose Run starts a cluster when none is named, runs the
// tests and stops the cluster: TestMain passes it to
// goleak.VerifyTestMain.
type Run struct{ M *testing.M }

// Run runs the tests and returns their exit code.
func (r Run) Run() int { return Main(r.M) }

// Main starts a cluster when none is named, runs the tests, and stops it.
// It returns the exit code for os.Exit.
func Main(m *testing.M) int {
	if u := os.Getenv(EnvURL); u != "" {
		admin = u
		return m.Run()
	}
	u, stop, err := Start()
	if err != nil {
		skipWhy = err.Error()
		return m.Run()
	}
	admin = u
	code := m.Run()
	stop()
	return code
}

func tool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range binDirs {
		if p := filepath.Join(d, name); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no %s (apt-get install -y postgresql, or set %s)", name, EnvURL)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// Start starts a throwaway cluster in a temporary directory and returns
// the URL of its postgres database and a func that stops and removes it.
// Tests run it without fsync; settings ("fsync=on") override that.
func Start(settings ...string) (adminURL string, stop func(), err error) {
	initdb, err := tool("initdb")
	if err != nil {
		return "", nil, err
	}
	pgctl, err := tool("pg_ctl")
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "askcore-pg-")
	if err != nil {
		return "", nil, err
	}
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("running as root and no postgres user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", nil, err
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := run(initdb, "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories=%s -c fsync=off -c max_connections=300", dir)
	for _, s := range settings {
		opts += " -c " + s
	}
	if out, err := run(pgctl, "-D", data, "-o", opts, "-w", "-l", filepath.Join(dir, "log"), "start").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	return "postgres://postgres@/postgres?host=" + url.QueryEscape(dir), func() {
		_ = run(pgctl, "-D", data, "-m", "immediate", "-w", "stop").Run()
		os.RemoveAll(dir)
	}, nil
}

// NewDB creates an empty database for t and returns its URL; without a
// server it ends t as missing.Tool does (skips, or fails in CI), saying
// why.
func NewDB(t testing.TB) string {
	t.Helper()
	if admin == "" {
		missing.Tool(t, "no PostgreSQL: "+skipWhy)
	}
	ctx := context.Background()
	name := fmt.Sprintf("askcore_%d_%d", os.Getpid(), dbSeq.Add(1))
	u, err := CreateDB(ctx, admin, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { _ = execSQL(ctx, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	return u
}

// CreateDB creates the database name on the server of adminURL and
// returns its URL.
func CreateDB(ctx context.Context, adminURL, name string) (string, error) {
	if err := execSQL(ctx, adminURL, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// execSQL runs query on the database of dbURL, on a connection of its own.
func execSQL(ctx context.Context, dbURL, query string) error {
	c, err := pq.NewConnector(dbURL)
	if err != nil {
		return err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	_, err = db.ExecContext(ctx, query)
	return err
}
