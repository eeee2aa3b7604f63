package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"runtime"
	"strconv"
	"time"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
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

// OpenPostgres connects to the PostgreSQL database at url (a postgres://
// or postgresql:// URL), migrates it (one process at a time) and listens
// for the wake-ups of every process sharing it: it returns once it
// listens, so that every commit after it returns wakes its watchers
// without waiting for the poll.
//
// A process keeps at most pool_max_conns connections (a parameter of url,
// with pool_max_conn_lifetime and pool_max_conn_idle_time; by default
// the larger of 4 and the number of CPUs, 1 hour, 30 minutes: pgxpool's
// parameters and defaults, kept from before lib/pq), besides the one it
// listens on. Few connections are faster: every backend is a process
// competing for the same cores, and with 20 a process the wake-ups of two
// replicas on two cores took 10 times longer at p99 (BENCHMARKS.md, "The
// hub"). A long poll holds none while it waits.
func OpenPostgres(ctx context.Context, url string) (Store, error) {
	c, err := parsePostgresURL(url)
	if err != nil {
		return nil, err
	}
	// A query run unprepared (runner: one first met in a transaction) in
	// one round trip, not two: with binary_parameters lib/pq sends it with
	// its parameters, without it prepares it first.
	c.cfg.BinaryParameters = true
	connector, err := pq.NewConnectorConfig(c.cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(c.maxConns)
	db.SetMaxIdleConns(c.maxConns)
	db.SetConnMaxLifetime(c.maxConnLifetime)
	db.SetConnMaxIdleTime(c.maxConnIdleTime)
	s, err := openSQLStore(ctx, db, postgresDialect)
	if err != nil {
		return nil, setupHint(err, c.cfg)
	}
	listening := make(chan struct{})
	s.background(func(ctx context.Context) { s.listen(ctx, c.dsn, listening) }, s.pollPostgres)
	select {
	case <-listening:
		return s, nil
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
}

// postgresURL is a store's URL taken apart: the pool's parameters, which
// lib/pq would send to the server as settings (refused there), and the
// rest, which lib/pq connects with.
type postgresURL struct {
	dsn                              string    // the URL without the pool's parameters
	cfg                              pq.Config // dsn as lib/pq resolves it (environment, defaults)
	maxConns                         int
	maxConnLifetime, maxConnIdleTime time.Duration
}

// parsePostgresURL takes s apart. Where neither s nor PGSSLMODE names an
// sslmode it is prefer, libpq's default and pgx's (lib/pq's is require,
// which refuses a server without TLS).
func parsePostgresURL(s string) (postgresURL, error) {
	u, err := neturl.Parse(s)
	if err != nil {
		if ue, ok := errors.AsType[*neturl.Error](err); ok {
			err = ue.Err // without the URL, which may hold a password
		}
		return postgresURL{}, fmt.Errorf("hub store: the PostgreSQL URL: %w", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return postgresURL{}, errors.New("hub store: PostgreSQL is named by a postgres:// or postgresql:// URL")
	}
	p := postgresURL{maxConns: max(4, runtime.NumCPU()), maxConnLifetime: time.Hour, maxConnIdleTime: 30 * time.Minute}
	q := u.Query()
	if v, ok := popParam(q, "pool_max_conns"); ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 1 {
			return postgresURL{}, fmt.Errorf("hub store: pool_max_conns=%q in the PostgreSQL URL: not a number of connections (1 or more)", v)
		}
		p.maxConns = int(n)
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"pool_max_conn_lifetime", &p.maxConnLifetime}, {"pool_max_conn_idle_time", &p.maxConnIdleTime}} {
		if v, ok := popParam(q, d.name); ok {
			if *d.to, err = time.ParseDuration(v); err != nil {
				return postgresURL{}, fmt.Errorf("hub store: %s=%q in the PostgreSQL URL: not a duration (such as 30m or 1h)", d.name, v)
			}
		}
	}
	if u.Path == "" {
		u.Path = "/" // else u.String() drops the // and lib/pq reads no URL
	}
	u.RawQuery = q.Encode()
	if p.cfg, err = pq.NewConfig(u.String()); err != nil {
		return postgresURL{}, err
	}
	if p.cfg.SSLMode == "" {
		q.Set("sslmode", string(pq.SSLModePrefer))
		u.RawQuery = q.Encode()
		p.cfg.SSLMode = pq.SSLModePrefer
	}
	p.dsn = u.String()
	return p, nil
}

// popParam removes the query parameter name from q and returns its value.
func popParam(q neturl.Values, name string) (string, bool) {
	v, ok := q[name]
	delete(q, name)
	if !ok {
		return "", false
	}
	return v[0], true
}

// setupHint adds to the errors a newcomer meets first (no role, no
// database: PostgreSQL's 28000 and 3D000) the commands that create what
// is missing, run as PostgreSQL's superuser. The names are those lib/pq
// connected with: the URL's, else PGUSER's and PGDATABASE's, else the
// OS user's; without a database name, PostgreSQL takes the user's.
func setupHint(err error, cfg pq.Config) error {
	pe, ok := errors.AsType[*pq.Error](err)
	if !ok {
		return err
	}
	user, database := cfg.User, cfg.Database
	if database == "" {
		database = user
	}
	switch pe.Code {
	case pqerror.InvalidAuthorizationSpecification: // the role does not exist
		return fmt.Errorf("%w\ncreate the role and its database (as PostgreSQL's superuser):\n  sudo -u postgres createuser --pwprompt %s\n  sudo -u postgres createdb --owner %s %s",
			err, user, user, database)
	case pqerror.InvalidCatalogName: // the database does not exist
		return fmt.Errorf("%w\ncreate the database (as PostgreSQL's superuser):\n  sudo -u postgres createdb --owner %s %s", err, user, database)
	}
	return err
}

// listen holds a LISTEN connection and passes its notifications to the
// watchers; listening is closed once the first LISTEN is done. lib/pq's
// Listener reconnects with a backoff of 50 ms doubling to 2 s, and says
// it did with a nil notification: then every watcher wakes (a
// notification sent meanwhile is lost). When ctx ends the Listener is
// closed, and Notify read until the Listener closes it, so that none of
// its goroutines is left behind.
func (s *sqlStore) listen(ctx context.Context, dsn string, listening chan<- struct{}) {
	l := pq.NewDialListener(ctxDialer{ctx}, dsn, 50*time.Millisecond, 2*time.Second, nil)
	defer context.AfterFunc(ctx, func() { _ = l.Close() })()
	// Listen waits for the first connection, or returns when ctx ends
	// (closed) or the server refuses LISTEN (a hot standby, where the
	// store cannot write either; the poll still wakes the watchers).
	if l.Listen(notifyChannel) != nil {
		_ = l.Close()
	}
	close(listening)
	for n := range l.Notify {
		if n == nil {
			s.w.notifyAll()
			continue
		}
		s.w.notify(n.Extra)
	}
}

// ctxDialer dials the listener's connections so that they end with ctx:
// a dial or a handshake with a server that does not answer would
// otherwise hold the Listener's lock, and so its Close, for minutes.
type ctxDialer struct{ ctx context.Context }

func (d ctxDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(d.ctx, cancel)()
	c, err := new(net.Dialer).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return ctxConn{c, context.AfterFunc(d.ctx, func() { c.Close() })}, nil
}

// Dial and DialTimeout complete lib/pq's Dialer, which calls DialContext.
func (d ctxDialer) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}

func (d ctxDialer) DialTimeout(network, addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, addr)
}

// ctxConn is a connection closed when its dialer's ctx ends, or before.
type ctxConn struct {
	net.Conn
	stop func() bool // unregisters the close at ctx's end
}

func (c ctxConn) Close() error {
	c.stop()
	return c.Conn.Close()
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
