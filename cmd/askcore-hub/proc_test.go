package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
	hubserver "github.com/askcore/askcore/hub/server"
	hubstore "github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/chantest"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(agentEnv) != "" {
		os.Exit(agentProcess())
	}
	goleak.VerifyTestMain(testRun{m})
}

// testRun runs the tests (with a PostgreSQL cluster of their own, pgtest),
// then removes the askcore-hub binary they built, if they built one: left
// in the temporary directory, every run added 38 MB there.
type testRun struct{ m *testing.M }

func (r testRun) Run() int {
	defer func() {
		if hubBinDir != "" {
			os.RemoveAll(hubBinDir)
		}
	}()
	return pgtest.Main(r.m)
}

const waitLong = 30 * time.Second

const question = `{"question":"Ship it?","options":[{"label":"Yes","description":"Tag and publish v2."},{"label":"No","description":"Hold the release."}]}`

// agentEnv makes the test binary an agent process: it asks question
// through the hub named by its environment and prints the answer or the
// error on stdout.
const agentEnv = "ASKCORE_HUB_TEST_AGENT"

func agentProcess() int {
	p := hub.New(os.Getenv("ASKCORE_HUB_URL"), os.Getenv("ASKCORE_HUB_TOKEN"), hub.WithMaxBackoff(100*time.Millisecond))
	svc := askcore.NewService(nil)
	dispose, _ := svc.Register(p)
	defer dispose()
	a, err := svc.Ask(context.Background(), question, askcore.AskOptions{From: askcore.Identity{SessionID: "s1", ToolCallID: os.Getenv(agentEnv)}})
	out, _ := askcore.ToolResult(a, err)
	fmt.Println(string(out))
	return 0
}

// hubBinary is askcore-hub, built once, into hubBinDir.
var hubBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "askcore-hub-bin-")
	if err != nil {
		return "", err
	}
	hubBinDir = dir
	bin := filepath.Join(dir, "askcore-hub")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return bin, build.Run()
})

// hubBinDir is the directory hubBinary built into ("" until it has).
var hubBinDir string

// hubProc is askcore-hub serve as a child process.
type hubProc struct {
	cmd    *exec.Cmd
	url    string
	exited chan struct{} // closed when the process ended
	err    error         // its exit, once exited is closed
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func startHub(t *testing.T, dsn, addr string) *hubProc {
	t.Helper()
	bin, err := hubBinary()
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "--engine", "native", "--addr", addr)
	cmd.Env = append(os.Environ(), "ASKCORE_HUB_DB="+dsn) // a URL with a password is refused as --db's value
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	h := &hubProc{cmd: cmd, exited: make(chan struct{})}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "askcore-hub: listening on "); ok {
			h.url, _, _ = strings.Cut(u, " ")
			break
		}
	}
	require.NotEmpty(t, h.url, "askcore-hub did not start")
	go func() { _, _ = io.Copy(io.Discard, stderr); h.err = cmd.Wait(); close(h.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-h.exited
	})
	return h
}

func (h *hubProc) kill(t *testing.T) {
	require.NoError(t, h.cmd.Process.Signal(syscall.SIGKILL))
	<-h.exited
}

// cliRun runs an askcore-hub command in process and returns its stdout.
func cliRun(t *testing.T, dsn string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb, dbEnv(dsn))
	require.Equal(t, 0, code, "%s", errb.String())
	return strings.TrimSpace(out.String())
}

// dbEnv is the environment of a command on the store dsn: its URL in
// ASKCORE_HUB_DB, as a URL with a password must be given (not --db), and
// the person ada.
func dbEnv(dsn string) func(string) string {
	return func(k string) string { return map[string]string{"ASKCORE_HUB_DB": dsn, "USER": "ada"}[k] }
}

func eachDB(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "hub.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, pgtest.NewDB(t)) })
}

// replier replies as the inbox would: a hub server on the same database.
func replier(t *testing.T, dsn string) (*hubserver.Server, hubstore.Store) {
	s, err := hubstore.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	srv, err := hubserver.New(hubserver.Options{Store: s})
	require.NoError(t, err)
	return srv, s
}

func pending(t *testing.T, s hubstore.Store, person int64) hubstore.Ask {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for time.Now().Before(deadline) {
		asks, err := s.Asks(context.Background(), hubstore.AskFilter{PersonID: person, State: hubstore.StatePending})
		require.NoError(t, err)
		if len(asks) == 1 {
			return asks[0]
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
	t.Fatal("no pending ask")
	return hubstore.Ask{}
}

// waitPolls waits until n agents wait in a long poll on the hub.
func waitPolls(t *testing.T, url string, n int) {
	t.Helper()
	want := fmt.Sprintf("askcore_hub_long_polls %d\n", n)
	deadline := time.Now().Add(waitLong)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), want) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
	t.Fatalf("no %d long polls on %s", n, url)
}

// askThroughHub asks question through the hub at url as the agent of
// token (tool call call_1 of session s1), in the background: the tool
// result's text arrives on the channel it returns.
func askThroughHub(t *testing.T, url, token string) <-chan string {
	t.Helper()
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(hub.New(url, token, hub.WithMaxBackoff(100*time.Millisecond)))
	require.NoError(t, err)
	t.Cleanup(dispose)
	got := make(chan string, 1)
	go func() {
		a, err := svc.Ask(context.Background(), question, askcore.AskOptions{From: askcore.Identity{SessionID: "s1", ToolCallID: "call_1"}})
		out, _ := askcore.ToolResult(a, err)
		got <- string(out)
	}()
	return got
}

func answerFor(t *testing.T, line string) string {
	svc := askcore.NewService(nil)
	dispose, _ := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) { return askcore.Lines(line), nil }))
	defer dispose()
	a, err := svc.Ask(context.Background(), question, askcore.AskOptions{})
	require.NoError(t, err)
	return string(a.JSON())
}

// TestHubKilledWhileAgentWaits: SIGKILL the hub while an agent waits,
// start it again, reply: the agent, which kept retrying, gets the answer.
func TestHubKilledWhileAgentWaits(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		addr := freeAddr(t)
		token := cliRun(t, dsn, "agent", "add", "ci")
		h := startHub(t, dsn, addr)
		srv, store := replier(t, dsn)
		person, err := store.PersonByName(context.Background(), "ada")
		require.NoError(t, err)

		got := askThroughHub(t, h.url, token)
		waitPolls(t, h.url, 1)
		a := pending(t, store, person.ID)
		h.kill(t)

		startHub(t, dsn, addr) // the same address: the agent reconnects to it
		_, err = srv.Reply(context.Background(), person.ID, a.ID, json.RawMessage(`{"lines":["Yes"]}`), "test")
		require.NoError(t, err)
		assert.Equal(t, answerFor(t, "Yes"), chantest.Receive(t, got, waitLong, "the agent did not get the answer"))
	})
}

// TestAgentKilledReplays: SIGKILL the agent while it waits, run it again
// with the same tool call: it attaches to its ask (no second question)
// and gets the reply.
func TestAgentKilledReplays(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		token := cliRun(t, dsn, "agent", "add", "ci")
		h := startHub(t, dsn, freeAddr(t))
		srv, store := replier(t, dsn)
		person, err := store.PersonByName(ctx, "ada")
		require.NoError(t, err)
		agent := func() (*exec.Cmd, *bytes.Buffer) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), agentEnv+"=call_7", "ASKCORE_HUB_URL="+h.url, "ASKCORE_HUB_TOKEN="+token)
			var out bytes.Buffer
			cmd.Stdout = &out
			require.NoError(t, cmd.Start())
			return cmd, &out
		}
		first, _ := agent()
		waitPolls(t, h.url, 1)
		a := pending(t, store, person.ID)
		require.NoError(t, first.Process.Signal(syscall.SIGKILL))
		_ = first.Wait()

		second, out := agent()
		done := make(chan error, 1)
		go func() { done <- second.Wait() }()
		t.Cleanup(func() { _ = second.Process.Kill() })
		waitPolls(t, h.url, 1)
		_, err = srv.Reply(ctx, person.ID, a.ID, json.RawMessage(`{"lines":["No"]}`), "test")
		require.NoError(t, err)
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(waitLong):
			t.Fatal("the replayed agent did not end")
		}
		assert.Equal(t, answerFor(t, "No"), strings.TrimSpace(out.String()))
		evs, err := store.Events(ctx, hubstore.EventFilter{PersonID: person.ID})
		require.NoError(t, err)
		var kinds []hubstore.EventKind
		for _, e := range evs {
			kinds = append(kinds, e.Kind)
			assert.Equal(t, a.ID, e.AskID)
		}
		assert.Equal(t, []hubstore.EventKind{hubstore.EventAsked, hubstore.EventReplied}, kinds, "one question, one reply")
	})
}

// TestSIGTERMReleasesWaiters: a hub told to stop answers its long polls
// at once and exits 0, without waiting out the minute of a poll.
func TestSIGTERMReleasesWaiters(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "hub.db")
	token := cliRun(t, dsn, "agent", "add", "ci")
	h := startHub(t, dsn, freeAddr(t))
	req, _ := http.NewRequest("POST", h.url+"/v1/asks", strings.NewReader(`{"arguments":"{\"question\":\"Q?\"}","toolCallId":"c"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var a struct{ ID string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	resp.Body.Close()
	polled := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("GET", h.url+"/v1/asks/"+a.ID+"?wait=60", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			polled <- 0
			return
		}
		resp.Body.Close()
		polled <- resp.StatusCode
	}()
	waitPolls(t, h.url, 1)
	start := time.Now()
	require.NoError(t, h.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case code := <-polled:
		assert.Equal(t, 200, code, "the poll is answered, not cut")
	case <-time.After(waitLong):
		t.Fatal("the long poll was not released")
	}
	select {
	case <-h.exited:
		assert.NoError(t, h.err, "exit status 0")
	case <-time.After(waitLong):
		t.Fatal("the hub did not exit")
	}
	assert.Less(t, time.Since(start), 15*time.Second)
}

// TestPlainHTTPRefusedOffLoopback: a non-loopback address needs TLS or
// the flag that says a proxy terminates it.
func TestPlainHTTPRefusedOffLoopback(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--addr", "0.0.0.0:0", "--db", filepath.Join(t.TempDir(), "h.db")}, &out, &errb, func(string) string { return "" })
	assert.Equal(t, 2, code)
	assert.Contains(t, errb.String(), "refusing plain HTTP")
}

// TestCLI: people, agents, revocation, sign-in links, the log.
func TestCLI(t *testing.T) {
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "hub.db")
	token := cliRun(t, dsn, "agent", "add", "ci", "--deadline", "90s")
	assert.True(t, strings.HasPrefix(token, hubserver.AgentTokenPrefix))
	assert.Len(t, token, len(hubserver.AgentTokenPrefix)+43, "256 bits")
	cliRun(t, dsn, "person", "add", "bob")
	cliRun(t, dsn, "agent", "add", "laptop", "--person", "bob")
	list := cliRun(t, dsn, "agent", "list")
	assert.Contains(t, list, "ci      ada     1m30s")
	assert.Contains(t, list, "laptop  bob")
	cliRun(t, dsn, "agent", "revoke", "ci")
	assert.NotContains(t, strings.Split(cliRun(t, dsn, "agent", "list"), "\n")[1], "  -\n")

	link := cliRun(t, dsn, "login")
	u, tok, ok := strings.Cut(link, "/signin?token=")
	require.True(t, ok, link)
	assert.Equal(t, "http://127.0.0.1:7433", u)
	s, err := hubstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	l, err := s.SigninLink(ctx, hubserver.HashToken(tok))
	require.NoError(t, err, "the link's token is stored hashed")
	assert.True(t, l.UsedAt.IsZero())
	assert.WithinDuration(t, time.Now().Add(signinTTL), l.ExpiresAt, time.Minute)
	a, err := s.AgentByName(ctx, "ci")
	require.NoError(t, err)
	assert.True(t, a.Revoked())
	assert.Equal(t, hubserver.HashToken(token), a.TokenHash, "only the hash is stored")

	var errb bytes.Buffer
	assert.Equal(t, 1, run(ctx, []string{"agent", "add", "ci"}, io.Discard, &errb, dbEnv(dsn)))
	assert.Contains(t, errb.String(), "exists already")
	assert.Equal(t, 2, run(ctx, []string{"agent", "add"}, io.Discard, io.Discard, dbEnv(dsn)))
	assert.Equal(t, 2, run(ctx, []string{"nope"}, io.Discard, io.Discard, os.Getenv))
	assert.Equal(t, "AT  ASK  EVENT  WHO  WHERE", cliRun(t, dsn, "log"))
}
