// Command askcore-hub stores asks durably and serves them to the person's
// inbox and to agents anywhere (docs/hub.md).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
)

const usage = `usage: askcore-hub COMMAND [flags]

Commands:
  serve                     serve the agent API and the inbox (default 127.0.0.1:7433)
  agent add NAME [--person P] [--deadline D]
                            add an agent; prints its token once
  agent revoke NAME         revoke an agent's token
  agent list                list the agents
  person add NAME           add a person
  login [--person P]        print a one-time sign-in link for the inbox
  log [--ask ID] [--json]   print the event log
  notify add webhook URL [--person P]
                            POST each new ask, signed, to URL; prints the
                            signing secret
  notify add ntfy URL [--person P] [--token-file F] [--answer-buttons]
                            publish each new ask to an ntfy topic URL (the
                            access token read from F, "-" for stdin); with
                            --answer-buttons, a button per option (up to 3)
  notify add email ADDRESS --smtp URL [--from ADDRESS] [--smtp-password-file F]
                            mail each new ask, with answer links, through
                            smtp://[USER@]HOST:PORT or smtps://...
  notify list               list the notification targets (no secrets)
  notify remove ID          remove a notification target
  --version                 print the version and exit

Every command takes --db (a SQLite file, or postgres://...; default
$ASKCORE_HUB_DB, else $XDG_DATA_HOME/askcore/hub.db). A password never goes
in --db: give a URL with one in $ASKCORE_HUB_DB, or keep the password in
~/.pgpass or $PGPASSWORD. The default person is $USER, created on first use.
`

// signinTTL is how long a sign-in link works (once).
const signinTTL = 15 * time.Minute

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintln(stdout, frontdoor.VersionLine("askcore-hub"))
		return 0
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, rest := args[0], args[1:]
	if (cmd == "agent" || cmd == "person" || cmd == "notify") && len(rest) > 0 {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	c := &cli{stdout: stdout, stderr: stderr, getenv: getenv, stdin: os.Stdin}
	fs := flag.NewFlagSet("askcore-hub "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.db, "db", getenv("ASKCORE_HUB_DB"), "the store: a SQLite `file`, or a postgres:// URL without a password (default $ASKCORE_HUB_DB, which may hold one, else $XDG_DATA_HOME/askcore/hub.db)")
	var f func(context.Context, []string) error
	switch cmd {
	case "serve":
		c.serveFlags(fs)
		f = noArgs(cmd, c.serve)
	case "agent add":
		fs.StringVar(&c.person, "person", "", "the person the agent asks (default $USER)")
		fs.DurationVar(&c.deadline, "deadline", 0, "expire each ask this long after it is asked (ASK_TIMEOUT); 0: never")
		f = c.agentAdd
	case "agent revoke":
		f = c.agentRevoke
	case "agent list":
		f = noArgs(cmd, c.agentList)
	case "person add":
		f = c.personAdd
	case "login":
		fs.StringVar(&c.person, "person", "", "the person to sign in (default $USER)")
		fs.StringVar(&c.base, "url", defaultBase(getenv), "the `URL` people open the hub at (default $ASKCORE_HUB_URL, else http://127.0.0.1:7433)")
		f = noArgs(cmd, c.login)
	case "notify add":
		fs.StringVar(&c.person, "person", "", "the person to notify (default $USER)")
		fs.StringVar(&c.tokenFile, "token-file", "", "ntfy: read the topic's access token from `FILE` (- for stdin)")
		fs.BoolVar(&c.answerButtons, "answer-buttons", false, "ntfy: a button per option that answers (anyone who can read the topic can press them)")
		fs.StringVar(&c.smtp, "smtp", "", "email: the SMTP server, smtp://[USER@]HOST:PORT (STARTTLS; plain only on loopback) or smtps://[USER@]HOST:PORT")
		fs.StringVar(&c.from, "from", "", "email: the sender `ADDRESS` (default the recipient)")
		fs.StringVar(&c.smtpPasswordFile, "smtp-password-file", "", "email: read the SMTP password from `FILE` (- for stdin)")
		f = c.notifyAdd
	case "notify list":
		f = noArgs(cmd, c.notifyList)
	case "notify remove":
		f = c.notifyRemove
	case "log":
		fs.StringVar(&c.ask, "ask", "", "only the events of this ask `ID`")
		fs.BoolVar(&c.json, "json", false, "one JSON object a line")
		f = noArgs(cmd, c.log)
	default:
		fmt.Fprintf(stderr, "askcore-hub: unknown command %q\n\n%s", strings.Join(args[:min(2, len(args))], " "), usage)
		return 2
	}
	// Flags may follow the names: agent add NAME --deadline 1h.
	var names []string
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		names, rest = append(names, rest[0]), rest[1:]
	}
	// A secret is never a flag's value (ps shows flags to every user);
	// $ASKCORE_HUB_DB, --db's default, may hold one.
	dbFlag := false
	fs.Visit(func(f *flag.Flag) { dbFlag = dbFlag || f.Name == "db" })
	if u, err := url.Parse(c.db); dbFlag && err == nil && store.IsPostgres(c.db) {
		if _, pw := u.User.Password(); pw || u.Query().Has("password") {
			fmt.Fprintln(stderr, "askcore-hub: --db: a password in the URL shows in the process list: give the URL in $ASKCORE_HUB_DB instead, or leave the password out and keep it in ~/.pgpass or $PGPASSWORD")
			return 2
		}
	}
	if err := f(ctx, names); err != nil {
		fmt.Fprintln(stderr, "askcore-hub:", err)
		var u usageError
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
	return 0
}

// noArgs is the command f, which takes no arguments beyond its flags.
func noArgs(cmd string, f func(context.Context) error) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		if len(args) != 0 {
			return usageError{cmd + " takes no arguments"}
		}
		return f(ctx)
	}
}

// personNames maps each person's id to their name, for the listings.
func personNames(ctx context.Context, s store.Store) (map[int64]string, error) {
	people, err := s.People(ctx)
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, p := range people {
		names[p.ID] = p.Name
	}
	return names, nil
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

type cli struct {
	stdout, stderr io.Writer
	getenv         func(string) string

	db       string
	person   string
	deadline time.Duration
	base     string
	ask      string
	json     bool
	// notify add
	tokenFile        string
	answerButtons    bool
	smtp, from       string
	smtpPasswordFile string
	stdin            io.Reader

	// serve
	settings                                frontdoor.Settings
	addr, tlsCert, tlsKey, metricsTokenFile string
	behindProxy                             bool
}

func defaultBase(getenv func(string) string) string {
	if u := getenv("ASKCORE_HUB_URL"); u != "" {
		return u
	}
	return "http://" + server.DefaultAddr
}

func (c *cli) open(ctx context.Context) (store.Store, error) {
	return store.Open(ctx, c.db)
}

// openPerson opens the store and finds the person of --person (default
// $USER); the caller closes the store.
func (c *cli) openPerson(ctx context.Context) (store.Store, store.Person, error) {
	s, err := c.open(ctx)
	if err != nil {
		return nil, store.Person{}, err
	}
	p, err := c.personNamed(ctx, s, c.person)
	if err != nil {
		s.Close()
		return nil, store.Person{}, err
	}
	return s, p, nil
}

// personNamed returns the person called name (default $USER), creating
// the default person on first use.
func (c *cli) personNamed(ctx context.Context, s store.Store, name string) (store.Person, error) {
	if name != "" {
		p, err := s.PersonByName(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			return p, fmt.Errorf("no person %q (askcore-hub person add %s)", name, name)
		}
		return p, err
	}
	name = c.getenv("USER")
	if name == "" {
		name = "me"
	}
	p, err := s.PersonByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		p, err = s.AddPerson(ctx, name)
		if errors.Is(err, store.ErrExists) {
			return s.PersonByName(ctx, name)
		}
	}
	return p, err
}

func oneName(args []string, what string) (string, error) {
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return "", usageError{"give one " + what + " name"}
	}
	return args[0], nil
}

func (c *cli) agentAdd(ctx context.Context, args []string) error {
	name, err := oneName(args, "agent")
	if err != nil {
		return err
	}
	if c.deadline < 0 {
		return usageError{"--deadline is not negative"}
	}
	s, p, err := c.openPerson(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	token, hash := server.NewToken(server.AgentTokenPrefix)
	a, err := s.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: name, TokenHash: hash, Deadline: c.deadline})
	if errors.Is(err, store.ErrExists) {
		return fmt.Errorf("an agent %q exists already", name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "askcore-hub: agent %q asks %s; its token (shown once, keep it secret):\n", a.Name, p.Name)
	fmt.Fprintln(c.stdout, token)
	return nil
}

func (c *cli) agentRevoke(ctx context.Context, args []string) error {
	name, err := oneName(args, "agent")
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	a, err := s.RevokeAgent(ctx, name, time.Now())
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no agent %q", name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "askcore-hub: agent %q revoked at %s\n", a.Name, a.RevokedAt.UTC().Format(time.RFC3339))
	return nil
}

func (c *cli) agentList(ctx context.Context) error {
	return c.list(ctx, "NAME\tPERSON\tDEADLINE\tCREATED\tREVOKED", func(s store.Store, names map[int64]string) ([][]string, error) {
		agents, err := s.Agents(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([][]string, 0, len(agents))
		for _, a := range agents {
			deadline, revoked := "-", "-"
			if a.Deadline > 0 {
				deadline = a.Deadline.String()
			}
			if a.Revoked() {
				revoked = a.RevokedAt.UTC().Format(time.RFC3339)
			}
			rows = append(rows, []string{a.Name, names[a.PersonID], deadline, a.CreatedAt.UTC().Format(time.RFC3339), revoked})
		}
		return rows, nil
	})
}

// list prints a table: header's columns (tab-separated), then the rows
// read from the store, given the people's names by id.
func (c *cli) list(ctx context.Context, header string, read func(s store.Store, names map[int64]string) ([][]string, error)) error {
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	names, err := personNames(ctx, s)
	if err != nil {
		return err
	}
	rows, err := read(s, names)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func (c *cli) personAdd(ctx context.Context, args []string) error {
	name, err := oneName(args, "person")
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.AddPerson(ctx, name); errors.Is(err, store.ErrExists) {
		return fmt.Errorf("a person %q exists already", name)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "askcore-hub: person %q added\n", name)
	return nil
}

// login prints a sign-in link: single use, short-lived. Opening it shows
// a button; only the button's POST signs in, so a link scanner that
// fetches it does not use it up.
func (c *cli) login(ctx context.Context) error {
	base, err := url.Parse(c.base)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return usageError{"--url is http(s)://HOST[:PORT]"}
	}
	s, p, err := c.openPerson(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	token, hash := server.NewToken("")
	expires := time.Now().Add(signinTTL)
	if err := s.CreateSigninLink(ctx, store.SigninLink{TokenHash: hash, PersonID: p.ID, ExpiresAt: expires}); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "askcore-hub: sign-in link for %s (works once, until %s):\n", p.Name, expires.Format("15:04"))
	fmt.Fprintf(c.stdout, "%s/signin?token=%s\n", strings.TrimSuffix(c.base, "/"), token)
	return nil
}

func (c *cli) log(ctx context.Context) error {
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	evs, err := s.Events(ctx, store.EventFilter{AskID: c.ask})
	if err != nil {
		return err
	}
	if c.json {
		enc := json.NewEncoder(c.stdout)
		for _, e := range evs {
			if err := enc.Encode(map[string]any{"id": e.ID, "ask": e.AskID, "kind": e.Kind, "who": e.Who, "where": e.Where,
				"at": e.At.UTC().Format(time.RFC3339Nano), "detail": e.Detail}); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AT\tASK\tEVENT\tWHO\tWHERE")
	for _, e := range evs {
		where := e.Where
		if where == "" {
			where = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format(time.RFC3339), e.AskID, e.Kind, e.Who, where)
	}
	return tw.Flush()
}

func (c *cli) serveFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", server.DefaultAddr, "listen on `HOST:PORT`")
	c.settings.AddEngineFlag(fs)
	fs.StringVar(&c.tlsCert, "tls-cert", "", "serve HTTPS with this certificate `file` (with --tls-key)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "the certificate's key `file`")
	fs.BoolVar(&c.behindProxy, "behind-tls-proxy", false, "a reverse proxy in front terminates TLS: plain HTTP on a non-loopback address is allowed")
	fs.StringVar(&c.base, "url", c.getenv("ASKCORE_HUB_URL"), "the `URL` people and agents open the hub at, when it is not the listening address (a proxy's name); its host is served")
	fs.StringVar(&c.metricsTokenFile, "metrics-token-file", "", "serve /metrics to requests with the bearer token in `FILE` (default: $ASKCORE_HUB_METRICS_TOKEN; neither: loopback connections only)")
}

// metricsToken is the bearer token of /metrics: from --metrics-token-file,
// else ASKCORE_HUB_METRICS_TOKEN. A secret is never a flag's value, which
// every user of the machine can read in the process list.
func (c *cli) metricsToken() (string, error) {
	if c.metricsTokenFile == "" {
		return c.getenv("ASKCORE_HUB_METRICS_TOKEN"), nil
	}
	b, err := os.ReadFile(c.metricsTokenFile)
	if err != nil {
		return "", usageError{"--metrics-token-file: " + err.Error()}
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", usageError{"--metrics-token-file: the file " + c.metricsTokenFile + " is empty"}
	}
	return token, nil
}
