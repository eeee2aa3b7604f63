package answerpage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/pagehttp"
)

// EnvBrowser names the browser to open the page in: "none" never opens one
// (like WithBrowser(false)); any other non-empty value is the command run
// with the URL as its last argument, instead of the system's opener.
const EnvBrowser = "ASKCORE_BROWSER"

// DefaultAddr is where the page listens unless WithAddr says otherwise:
// the loopback interface, a free port.
const DefaultAddr = "127.0.0.1:0"

// DefaultIdleStop is how long the server keeps listening with nothing
// pending.
const DefaultIdleStop = 5 * time.Minute

// LogPrefix begins the line each start writes to the log, followed by the
// URL (docs/SPEC.md, "Front doors").
const LogPrefix = "askcore: answer at "

// tokenBytes is the URL token's length: 256 random bits.
const tokenBytes = 32

// Option tunes New.
type Option func(*config)

type config struct {
	addr     string
	browser  bool
	idleStop time.Duration
	log      io.Writer
	getenv   func(string) string
	open     func(ctx context.Context, url string) error
}

// WithAddr listens on addr (host:port) instead of DefaultAddr, e.g.
// "127.0.0.1:8765" for a fixed port to forward over SSH. An address that is
// not a loopback one is a warning in the log: anyone who can reach it and
// learns the URL can answer.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithBrowser(true) opens the page in the default browser when a question
// arrives and no page is open, if a desktop session is detected and
// ASKCORE_BROWSER is not "none". Off by default.
func WithBrowser(open bool) Option { return func(c *config) { c.browser = open } }

// WithIdleStop stops listening after d with nothing pending (the next Ask
// starts again). d <= 0 keeps listening until Close. Default
// DefaultIdleStop.
func WithIdleStop(d time.Duration) Option { return func(c *config) { c.idleStop = d } }

// WithLog writes the "askcore: answer at URL" line of each start, and the
// server's warnings, to w instead of os.Stderr.
func WithLog(w io.Writer) Option { return func(c *config) { c.log = w } }

// WithEnv reads ASKCORE_BROWSER, DISPLAY and WAYLAND_DISPLAY through getenv
// instead of os.Getenv.
func WithEnv(getenv func(string) string) Option { return func(c *config) { c.getenv = getenv } }

// WithOpener opens the page with open instead of the system's opener (or
// the ASKCORE_BROWSER command). It is called only where WithBrowser(true)
// would open a browser: a desktop session, or ASKCORE_BROWSER naming a
// command.
func WithOpener(open func(ctx context.Context, url string) error) Option {
	return func(c *config) { c.open = open }
}

// newConfig is the configuration opts say, over the defaults.
func newConfig(opts []Option) config {
	cfg := config{addr: DefaultAddr, idleStop: DefaultIdleStop, log: os.Stderr, getenv: os.Getenv}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.log == nil {
		cfg.log = io.Discard
	}
	if cfg.getenv == nil {
		cfg.getenv = os.Getenv
	}
	if cfg.addr == "" {
		cfg.addr = DefaultAddr
	}
	return cfg
}

// Server is the answer page: an HTTP server and the queue of the questions
// pending on it. It is an askcore.Provider (Ask) and safe for concurrent
// use. The zero value is not usable: call New.
type Server struct {
	core  *askcore.Core
	cfg   config
	token string

	mu       sync.Mutex
	closed   bool
	run      *run               // the current start, nil while not listening
	lastAddr string             // the address of the previous start, tried first
	items    map[string]*item   // pending questions
	order    []*item            // pending questions in arrival order
	ended    map[string]endInfo // recently ended questions, for the page's late answers
	endedIDs []string           // ended's keys, oldest first
	idle     *time.Timer
	closedCh chan struct{}
	statics  *pagehttp.Files
	warming  sync.WaitGroup // the compression a start began (Warmup)
}

// run is one start: a listener and the page's event streams.
type run struct {
	ln     net.Listener
	hs     *http.Server
	url    string
	host   string // the address listened on
	port   string
	ctx    context.Context // done when this start stops
	stop   context.CancelFunc
	subs   map[*subscriber]struct{}
	opened bool // the browser was opened for this start
	served chan struct{}
	// stopping: the idle stop is shutting this start down; stopped is
	// closed once it is down.
	stopping bool
	stopped  chan struct{}
}

type itemState int

const (
	statePending itemState = iota
	stateChecking
	stateEnded
)

// item is one pending question.
type item struct {
	id      string
	call    *askcore.Call
	ctx     context.Context
	started time.Time
	state   itemState
	reply   chan askcore.Reply // buffered: the answer, once
	event   []byte             // its "add" event data
}

// endInfo says how a question ended, for the page.
type endInfo struct {
	ID string `json:"id"`
	// State is "answered", "declined", "timeout", "aborted" or "withdrawn".
	State string `json:"state"`
	// Message is what the page shows: the core's summary of the answer,
	// the picker's word for a decline, or the core's message for the
	// situation that ended the question.
	Message string `json:"message"`
}

// New returns an answer page asking through core (nil: the native core)
// for the words of the situations that end a question; each question is
// judged by its own call's core. It listens only once asked (Ask, Start).
func New(core *askcore.Core, opts ...Option) *Server {
	if core == nil {
		core = askcore.NewCore(nil)
	}
	return &Server{
		core:     core,
		cfg:      newConfig(opts),
		token:    newToken(),
		items:    map[string]*item{},
		ended:    map[string]endInfo{},
		closedCh: make(chan struct{}),
		statics:  sharedStatics(),
	}
}

func newToken() string {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		panic("answerpage: no randomness for the URL token: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func newID() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic("answerpage: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// Provider returns the server as an askcore.Provider.
func (s *Server) Provider() askcore.Provider { return s }

// URL returns the page's address while the server listens, else "".
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil || s.run.stopping {
		return ""
	}
	return s.run.url
}

// Pending returns how many questions wait for an answer on the page.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

var errClosed = errors.New("answerpage: the server is closed")

// Start makes the server listen, if it does not already, and returns the
// page's URL. Ask starts it itself; Start is for a front door that shows
// the URL before asking (an MCP URL-mode elicitation). A server that is not
// asked anything stops again after the idle time.
func (s *Server) Start() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errClosed
	}
	if err := s.startLocked(); err != nil {
		return "", err
	}
	if len(s.order) == 0 {
		s.armIdleLocked()
	}
	return s.run.url, nil
}

// startLocked listens if the server does not; s.mu is held (and released
// while an idle stop finishes).
func (s *Server) startLocked() error {
	for s.run != nil && s.run.stopping {
		stopped := s.run.stopped
		s.mu.Unlock()
		<-stopped
		s.mu.Lock()
	}
	if s.closed {
		return errClosed
	}
	if s.run != nil {
		return nil
	}
	ln, err := s.listen()
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	urlHost := host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		// Listening everywhere: the URL names this machine's loopback
		// address, the one to open here (over SSH: after a forward).
		if ip.To4() != nil {
			urlHost = "127.0.0.1"
		} else {
			urlHost = "::1"
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	r := &run{
		ln:      ln,
		url:     "http://" + net.JoinHostPort(urlHost, port) + "/" + s.token + "/",
		host:    host,
		port:    port,
		ctx:     ctx,
		stop:    stop,
		subs:    map[*subscriber]struct{}{},
		served:  make(chan struct{}),
		stopped: make(chan struct{}),
	}
	r.hs = &http.Server{
		Handler:           s.handler(r),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	s.run = r
	s.lastAddr = ln.Addr().String()
	go func() {
		defer close(r.served)
		_ = r.hs.Serve(ln)
	}()
	// Compress the files for the first page load; Close waits for it, so
	// that no goroutine of the server outlives it.
	s.warming.Add(1)
	go func() {
		defer s.warming.Done()
		Warmup()
	}()
	if !isLoopback(host) {
		fmt.Fprintf(s.cfg.log, "askcore: warning: the answer page listens on %s, not only on this machine's loopback interface: anyone who can reach that address and learns the URL can answer\n", ln.Addr())
	}
	fmt.Fprintf(s.cfg.log, "%s%s\n", LogPrefix, r.url)
	return nil
}

// listen opens the listener: on the previous start's address first (an
// open page reconnects by itself), else on the configured one.
func (s *Server) listen() (net.Listener, error) {
	if s.lastAddr != "" {
		if ln, err := net.Listen(network(s.lastAddr), s.lastAddr); err == nil {
			return ln, nil
		}
	}
	ln, err := net.Listen(network(s.cfg.addr), s.cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("answerpage: listen on %s: %w", s.cfg.addr, err)
	}
	return ln, nil
}

// network listens on IPv4 only for an IPv4 address (0.0.0.0 too), IPv6
// only for an IPv6 one.
func network(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "tcp"
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.To4() != nil {
			return "tcp4"
		}
		return "tcp6"
	}
	return "tcp"
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Close withdraws every pending question (the page says so), stops
// listening and makes every later Ask fail at once. Calling it again does
// nothing.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closedCh)
	for _, it := range append([]*item(nil), s.order...) {
		s.endLocked(it, s.endFor(it, errClosed))
	}
	r := s.run
	s.run = nil
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
	if r != nil {
		s.shutdown(r)
	}
	s.warming.Wait()
	return nil
}

// shutdown stops one start: the event streams say goodbye and end, then
// the listener closes.
func (s *Server) shutdown(r *run) {
	r.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := r.hs.Shutdown(ctx); err != nil {
		_ = r.hs.Close()
	}
	<-r.served
}

// armIdleLocked stops the current start after the idle time, if nothing is
// pending by then; s.mu is held.
func (s *Server) armIdleLocked() {
	if s.cfg.idleStop <= 0 || s.run == nil {
		return
	}
	if s.idle != nil {
		s.idle.Stop()
	}
	r := s.run
	s.idle = time.AfterFunc(s.cfg.idleStop, func() {
		s.mu.Lock()
		if s.run != r || r.stopping || len(s.order) > 0 {
			s.mu.Unlock()
			return
		}
		// Down first, then forgotten: a start meanwhile waits for the
		// port (an open page reconnects to it).
		r.stopping = true
		s.mu.Unlock()
		s.shutdown(r)
		s.mu.Lock()
		if s.run == r {
			s.run = nil
		}
		close(r.stopped)
		s.mu.Unlock()
	})
}

// Ask puts call on the page and returns what the person gave there:
// askcore.Picks, each pick accepted by the call's core, or askcore.Decline.
// When ctx is done the question is withdrawn from the page (which says
// why) and Ask returns the aborted situation.
func (s *Server) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	if call == nil {
		return askcore.Reply{}, errors.New("answerpage: nil call")
	}
	ev, err := addEvent(call)
	if err != nil {
		return askcore.Reply{}, err
	}
	it := &item{id: newID(), call: call, ctx: ctx, started: time.Now(), reply: make(chan askcore.Reply, 1)}
	ev.ID = it.id
	if it.event, err = json.Marshal(ev); err != nil {
		return askcore.Reply{}, err
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationWithdrawn}
	}
	if err := s.startLocked(); err != nil {
		s.mu.Unlock()
		return askcore.Reply{}, err
	}
	if s.idle != nil {
		s.idle.Stop()
	}
	s.items[it.id] = it
	s.order = append(s.order, it)
	s.broadcastLocked("add", it.event)
	r := s.run
	open := s.cfg.browser && !r.opened && len(r.subs) == 0
	if open {
		r.opened = true
	}
	s.mu.Unlock()
	if open {
		s.openBrowser(r.url)
	}

	select {
	case rep := <-it.reply:
		return rep, nil
	case <-ctx.Done():
		s.mu.Lock()
		if it.state != stateEnded {
			s.endLocked(it, s.endFor(it, nil))
		}
		s.mu.Unlock()
		// An answer that won the race is the person's: keep it.
		select {
		case rep := <-it.reply:
			return rep, nil
		default:
		}
		f := askcore.Failure{Situation: askcore.SituationAborted}
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			f.Detail = cause.Error()
		}
		return askcore.Reply{}, f
	case <-s.closedCh:
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationWithdrawn}
	}
}

// pageCall is one question as the page receives it.
type pageCall struct {
	ID   string          `json:"id"`
	Call json.RawMessage `json:"call"`
	From *pageFrom       `json:"from,omitempty"`
}

type pageFrom struct {
	AgentID    string `json:"agentId,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
}

func addEvent(call *askcore.Call) (pageCall, error) {
	raw := call.JSON()
	if len(raw) == 0 {
		return pageCall{}, errors.New("answerpage: the call has no normalized JSON")
	}
	ev := pageCall{Call: raw}
	if f := call.From; f != (askcore.Identity{}) {
		ev.From = &pageFrom{AgentID: f.AgentID, SessionID: f.SessionID, ToolCallID: f.ToolCallID}
	}
	return ev, nil
}

// endFor says why it ended while pending: its ctx's reason, else closing.
// It runs the core's fail op; s.mu may be held (the op does not call back).
func (s *Server) endFor(it *item, closing error) endInfo {
	ctx := context.WithoutCancel(it.ctx)
	var f askcore.Failure
	switch {
	case it.ctx.Err() != nil && errors.Is(it.ctx.Err(), context.DeadlineExceeded):
		f = askcore.Failure{Situation: askcore.SituationTimeout}
		var timeout *askcore.TimeoutError
		if errors.As(context.Cause(it.ctx), &timeout) {
			f.Millis = timeout.Timeout.Milliseconds()
		} else if dl, ok := it.ctx.Deadline(); ok {
			// A deadline of the caller's own, not the ask's Timeout: the
			// page knows only how long the question was open.
			f.Millis = dl.Sub(it.started).Round(10 * time.Millisecond).Milliseconds()
		}
		if f.Millis <= 0 {
			f.Millis = 1
		}
	case it.ctx.Err() != nil:
		f = askcore.Failure{Situation: askcore.SituationAborted}
		if cause := context.Cause(it.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			f.Detail = cause.Error()
		}
	case closing != nil:
		f = askcore.Failure{Situation: askcore.SituationWithdrawn}
	default:
		f = askcore.Failure{Situation: askcore.SituationAborted}
	}
	state := map[askcore.Situation]string{
		askcore.SituationTimeout:   "timeout",
		askcore.SituationAborted:   "aborted",
		askcore.SituationWithdrawn: "withdrawn",
	}[f.Situation]
	return endInfo{ID: it.id, State: state, Message: s.core.Fail(ctx, f).Message}
}

// endLocked takes it off the queue and tells the pages; s.mu is held.
func (s *Server) endLocked(it *item, info endInfo) {
	it.state = stateEnded
	delete(s.items, it.id)
	for i, o := range s.order {
		if o == it {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.ended[it.id] = info
	s.endedIDs = append(s.endedIDs, it.id)
	if len(s.endedIDs) > maxEnded {
		delete(s.ended, s.endedIDs[0])
		s.endedIDs = s.endedIDs[1:]
	}
	if data, err := json.Marshal(info); err == nil {
		s.broadcastLocked("end", data)
	}
	if len(s.order) == 0 && !s.closed {
		s.armIdleLocked()
	}
}

// maxEnded bounds how many ended questions the server remembers.
const maxEnded = 256

// snapshotLocked is the "pending" event: every pending question; s.mu is
// held.
func (s *Server) snapshotLocked() []byte {
	var b []byte
	b = append(b, `{"items":[`...)
	for i, it := range s.order {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.event...)
	}
	return append(b, "]}"...)
}

// portOf returns the port of the current start, for tests.
func (s *Server) portOf() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil || s.run.stopping {
		return 0
	}
	p, _ := strconv.Atoi(s.run.port)
	return p
}
