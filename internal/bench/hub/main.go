// Command hubbench measures askcore-hub (scripts/bench.sh runs it; the
// figures are in BENCHMARKS.md): AGENTS agents each ask ASKS questions in
// turn through the Go provider while a replier answers each one ~100 ms
// after it appears, on one SQLite hub and on two PostgreSQL replicas
// (agents spread over both, the replies committed through a third
// store). It checks that every answer reaches its agent once and reports
// the time from a reply's commit to the waiting agent's wake-up. Then the
// idle RSS of a hub holding 10,000 pending asks.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
	hubserver "github.com/askcore/askcore/hub/server"
	hubstore "github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

func main() {
	bin := flag.String("hub", "", "the askcore-hub binary")
	agents := flag.Int("agents", 200, "agents")
	asks := flag.Int("asks", 20, "asks per agent")
	idle := flag.Int("idle", 10000, "pending asks for the idle RSS (0: not measured)")
	sqliteProc := flag.Bool("sqlite-process", false, "run the SQLite hub as a process too (replies then reach it through the event-log read, every 100 ms)")
	pg := flag.String("pg", os.Getenv(pgtest.EnvURL), "a PostgreSQL admin URL (default: a throwaway cluster, when initdb is installed)")
	stores := flag.String("stores", "sqlite,postgres", "the stores to load, comma-separated")
	cpuProfile := flag.String("cpuprofile", "", "write this process's CPU profile to the file (the SQLite hub runs in it)")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "hubbench: -hub is required")
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "hubbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	only := map[string]bool{}
	for _, s := range strings.Split(*stores, ",") {
		only[strings.TrimSpace(s)] = true
	}
	if err := run(*bin, *agents, *asks, *idle, *pg, *sqliteProc, only); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "hubbench:", err)
		os.Exit(1)
	}
}

func run(bin string, agents, asks, idle int, pg string, sqliteProc bool, only map[string]bool) error {
	dir, err := os.MkdirTemp("", "hubbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("askcore-hub: %d agents x %d asks, each answered ~100 ms after it appears\n\n", agents, asks)
	fmt.Printf("%-34s %8s %9s %9s %9s %9s %8s\n", "store", "answers", "p50 ms", "p90 ms", "p99 ms", "max ms", "wall s")
	sqliteBin, sqliteName := "", "SQLite, one hub"
	if sqliteProc {
		sqliteBin, sqliteName = bin, "SQLite, hub process"
	}
	if only["sqlite"] {
		if err := load(sqliteName, sqliteBin, []string{filepath.Join(dir, "load.db")}, agents, asks); err != nil {
			return err
		}
	}
	if only["postgres"] {
		if err := loadPostgres(bin, pg, agents, asks); err != nil {
			return err
		}
	}
	if idle == 0 {
		return nil
	}
	fmt.Println()
	return idleRSS(bin, filepath.Join(dir, "idle.db"), idle)
}

// loadPostgres runs load on two replicas of a new database of the
// PostgreSQL at admin URL pg, or of a throwaway cluster when pg is "".
func loadPostgres(bin, pg string, agents, asks int) error {
	if pg == "" {
		// Durable like the SQLite file: fsync on. Commit timestamps: the
		// server's own time of each reply's commit.
		u, stop, err := pgtest.Start("fsync=on", "track_commit_timestamp=on")
		if err != nil {
			fmt.Println("PostgreSQL: skipped:", err)
			return nil
		}
		defer stop()
		pg = u
	}
	dsn, err := pgtest.CreateDB(context.Background(), pg, fmt.Sprintf("hubbench_%d", os.Getpid()))
	if err != nil {
		return err
	}
	return load("PostgreSQL, two replicas", bin, []string{dsn, dsn}, agents, asks)
}

// hubProc is one askcore-hub serve.
type hubProc struct {
	cmd *exec.Cmd
	url string
}

func startHub(bin, dsn string) (*hubProc, error) {
	cmd := exec.Command(bin, "serve", "--engine", "native", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "ASKCORE_HUB_DB="+dsn) // a URL with a password is refused as --db's value
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "askcore-hub: listening on "); ok {
			u, _, _ = strings.Cut(u, " ")
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return &hubProc{cmd: cmd, url: u}, nil
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, fmt.Errorf("askcore-hub did not start")
}

func (h *hubProc) stop() {
	_ = h.cmd.Process.Signal(os.Interrupt)
	_ = h.cmd.Wait()
}

// load runs the agents against one hub per dsn (replicas of one database)
// and prints one row: hub processes of bin, or with no bin one hub in
// this process.
func load(name, bin string, dsns []string, agents, asks int) error {
	ctx := context.Background()
	store, err := hubstore.Open(ctx, dsns[0])
	if err != nil {
		return err
	}
	defer store.Close()
	replier, err := hubserver.New(hubserver.Options{Store: store})
	if err != nil {
		return err
	}
	var hubs []string
	if bin == "" {
		hs := httptest.NewServer(replier.Handler())
		defer hs.Close()
		hubs = append(hubs, hs.URL)
	}
	for _, dsn := range dsns {
		if bin == "" {
			break
		}
		h, err := startHub(bin, dsn)
		if err != nil {
			return err
		}
		defer h.stop()
		hubs = append(hubs, h.url)
	}
	tokens := make([]string, agents)
	persons := make([]int64, agents)
	for i := range agents {
		p, err := store.AddPerson(ctx, "person"+strconv.Itoa(i))
		if err != nil {
			return err
		}
		tok, hash := hubserver.NewToken(hubserver.AgentTokenPrefix)
		if _, err := store.AddAgent(ctx, hubstore.NewAgent{PersonID: p.ID, Name: "agent" + strconv.Itoa(i), TokenHash: hash}); err != nil {
			return err
		}
		tokens[i], persons[i] = tok, p.ID
	}
	transport := &http.Transport{MaxIdleConnsPerHost: agents, MaxConnsPerHost: 0,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	client := &http.Client{Transport: transport}
	defer transport.CloseIdleConnections()

	var mu sync.Mutex
	var lat []time.Duration
	woken := map[string]time.Time{} // by ask id: when its agent woke
	var failures []string
	start := time.Now()
	var wg sync.WaitGroup
	for i := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := askcore.NewService(nil)
			dispose, _ := svc.Register(hub.New(hubs[i%len(hubs)], tokens[i], hub.WithHTTPClient(client)))
			defer dispose()
			for j := range asks {
				want := fmt.Sprintf("answer %d-%d", i, j)
				args := fmt.Sprintf(`{"question":"Question %d-%d?"}`, i, j)
				committed := make(chan replied, 1)
				go func() {
					committed <- replyWhenAsked(ctx, store, replier, persons[i], want)
				}()
				a, err := svc.Ask(ctx, args, askcore.AskOptions{From: askcore.Identity{SessionID: "s", ToolCallID: fmt.Sprintf("call-%d", j)}})
				woke := time.Now()
				r := <-committed
				mu.Lock()
				switch {
				case err != nil:
					failures = append(failures, err.Error())
				case a.Questions[0].Answer != want:
					failures = append(failures, fmt.Sprintf("agent %d got %q, want %q", i, a.Questions[0].Answer, want))
				default:
					lat = append(lat, woke.Sub(r.at))
					woken[r.ask] = woke
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	// Every ask replied once: one replied event each.
	replied := 0
	for _, p := range persons {
		evs, err := store.Events(ctx, hubstore.EventFilter{PersonID: p})
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Kind == hubstore.EventReplied {
				replied++
			}
		}
	}
	if len(failures) > 0 || replied != agents*asks {
		return fmt.Errorf("%s: %d failures (first: %v), %d replied events for %d asks", name, len(failures), first(failures), replied, agents*asks)
	}
	row(name, lat, wall)
	if commits, ok := commitTimes(ctx, dsns[0]); ok {
		var fromCommit []time.Duration
		for ask, woke := range woken {
			if c, ok := commits[ask]; ok {
				fromCommit = append(fromCommit, woke.Sub(c))
			}
		}
		if len(fromCommit) != len(woken) {
			return fmt.Errorf("%s: %d commit timestamps for %d answers", name, len(fromCommit), len(woken))
		}
		row("  from the commit (server's time)", fromCommit, wall)
	}
	return nil
}

// row prints one line of the table: the quantiles of lat.
func row(name string, lat []time.Duration, wall time.Duration) {
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	fmt.Printf("%-34s %8d %9.1f %9.1f %9.1f %9.1f %8.1f\n", name, len(lat), q(0.5), q(0.9), q(0.99), q(1), wall.Seconds())
}

// commitTimes reads, from a PostgreSQL database that tracks commit
// timestamps, when the transaction of each ask's reply committed (the
// server's clock, the machine's): its replied event's xmin is that
// transaction, as events are never updated. False for SQLite or without
// track_commit_timestamp.
func commitTimes(ctx context.Context, dsn string) (map[string]time.Time, bool) {
	if !hubstore.IsPostgres(dsn) {
		return nil, false
	}
	c, err := pq.NewConnector(dsn)
	if err != nil {
		return nil, false
	}
	db := sql.OpenDB(c)
	defer db.Close()
	var on string
	if db.QueryRowContext(ctx, "SHOW track_commit_timestamp").Scan(&on) != nil || on != "on" {
		fmt.Println("  (no commit timestamps: track_commit_timestamp is off on this server)")
		return nil, false
	}
	rows, err := db.QueryContext(ctx, "SELECT ask_id, pg_xact_commit_timestamp(xmin) FROM events WHERE kind = 'replied'")
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var ask string
		var at time.Time
		if rows.Scan(&ask, &at) != nil {
			return nil, false
		}
		out[ask] = at
	}
	return out, rows.Err() == nil
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// replied is the ask a replier answered and the reply's time as stored.
type replied struct {
	ask string
	at  time.Time
}

// replyWhenAsked waits for the person's pending ask, lets ~100 ms pass
// (the agent is in its long poll by then), replies, and returns the
// reply's time as stored: taken after the core judged the reply, just
// before its transaction began, so the latency counted from it includes
// the whole transaction (waiting for a connection, the commit) and is
// never under the truth.
func replyWhenAsked(ctx context.Context, store hubstore.Store, srv *hubserver.Server, person int64, answer string) replied {
	wake, stop := store.Watch(hubstore.PersonKey(person))
	defer stop()
	for {
		asks, err := store.Asks(ctx, hubstore.AskFilter{PersonID: person, State: hubstore.StatePending})
		if err == nil && len(asks) == 1 {
			time.Sleep(80*time.Millisecond + rand.N(40*time.Millisecond))
			reply, _ := json.Marshal(map[string][]string{"lines": {answer}})
			a, err := srv.Reply(ctx, person, asks[0].ID, reply, "bench")
			if err != nil {
				fmt.Fprintln(os.Stderr, "hubbench: reply:", err)
				return replied{asks[0].ID, time.Now()}
			}
			return replied{a.ID, a.UpdatedAt}
		}
		select {
		case <-wake:
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// idleRSS creates n pending asks on a SQLite hub and reads its resident
// memory once idle.
func idleRSS(bin, dsn string, n int) error {
	ctx := context.Background()
	store, err := hubstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	p, err := store.AddPerson(ctx, "idle")
	if err != nil {
		return err
	}
	// Agents of 100 asks each, within an agent's burst of requests.
	var toks []string
	for i := range (n + 99) / 100 {
		tok, hash := hubserver.NewToken(hubserver.AgentTokenPrefix)
		if _, err := store.AddAgent(ctx, hubstore.NewAgent{PersonID: p.ID, Name: "idle" + strconv.Itoa(i), TokenHash: hash}); err != nil {
			return err
		}
		toks = append(toks, tok)
	}
	store.Close()
	h, err := startHub(bin, dsn)
	if err != nil {
		return err
	}
	defer h.stop()
	before, err := rss(h.cmd.Process.Pid)
	if err != nil {
		return err
	}
	client := &http.Client{}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	var failed sync.Once
	var ferr error
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			body := fmt.Sprintf(`{"arguments":"{\"question\":\"Idle question %d?\"}","toolCallId":"c%d"}`, i, i)
			req, _ := http.NewRequest("POST", h.url+"/v1/asks", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+toks[i/100])
			resp, err := client.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					err = fmt.Errorf("rate limited")
				} else if resp.StatusCode != http.StatusCreated {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			if err != nil {
				failed.Do(func() { ferr = err })
			}
		}()
	}
	wg.Wait()
	if ferr != nil {
		return fmt.Errorf("creating the idle asks: %w", ferr)
	}
	client.CloseIdleConnections()
	time.Sleep(2 * time.Second)
	after, err := rss(h.cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("idle RSS of askcore-hub (SQLite): %.1f MB at start, %.1f MB holding %d pending asks\n", before, after, n)
	return nil
}

// rss is a process's resident set size in MB (/proc, Linux).
func rss(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS")
}
