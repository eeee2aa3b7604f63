package server

// mcp.go serves the hub as a remote MCP server: /mcp over streamable
// HTTP (package mcpserver on go-sdk), one tool, ask_user_question, whose
// every call is an ask of the agent whose bearer token the request
// carries. The call waits for the person's reply in the inbox.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/hub/internal/wire"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/mcpserver"
)

// MCPPath is where the hub serves MCP.
const MCPPath = "/mcp"

// maxMCPBody bounds one MCP request: a tools/call around the largest
// arguments the core accepts, as POST /v1/asks is bounded.
const maxMCPBody = maxBody + 4096

// mcpSessionIdle is how long an MCP session lasts without a request.
const mcpSessionIdle = 30 * time.Minute

type agentKey struct{}

// mcpRoutes registers /mcp: authenticated as the agent API is (the same
// tokens, the same 401, rate limits and refusal of web pages), then
// go-sdk's streamable HTTP handler, with the agent as the session's user
// so that another token cannot use the session.
func (s *Server) mcpRoutes() {
	svc := askcore.NewService(s.core)
	srv, err := mcpserver.New(svc, &mcpserver.Options{Web: frontdoor.WebNever, Logger: s.log})
	if err != nil {
		s.log.Error("the MCP endpoint cannot start", "err", err)
		s.mux.HandleFunc(MCPPath, func(w http.ResponseWriter, _ *http.Request) {
			WriteError(w, http.StatusServiceUnavailable, hubError(codeFor(http.StatusServiceUnavailable), "the hub's MCP endpoint could not start: "+err.Error()))
		})
		return
	}
	if _, err := svc.Register(&mcpAsker{s: s, mcp: srv}); err != nil {
		panic(err) // a new service has no provider yet
	}
	h := srv.Handler(&mcp.StreamableHTTPOptions{
		Logger: s.log,
		// The hub's guard checks the Host header against the names it
		// serves (Options.Hosts), which a reverse proxy on loopback
		// forwards: go-sdk's own check would refuse those.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        maxMCPBody,
		// A host that went away without ending its session: its session
		// ends after this long without a request (a call in progress
		// holds it open).
		SessionTimeout: mcpSessionIdle,
	})
	h = auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		a, ok := r.Context().Value(agentKey{}).(store.Agent)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: strconv.FormatInt(a.ID, 10), Extra: map[string]any{"agent": a}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	s.mux.Handle(MCPPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		// The body is read within the server's read timeout; the response
		// then lasts as long as the person takes (a call's stream, the
		// session's stream of notifications).
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			WriteError(w, http.StatusRequestEntityTooLarge, hubError(wire.CodeTooLarge, "an MCP request is at most "+strconv.Itoa(maxMCPBody)+" bytes"))
			return
		case err != nil:
			badRequest(w, "reading the body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		holdOpen(w)
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), agentKey{}, agent)))
	}))
}

// holdOpen lifts the server's read and write deadlines for a response
// that lasts as long as a person takes. (A read deadline that passes while
// the handler runs would cancel the request's context.)
func holdOpen(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// mcpAsker is the provider of /mcp's calls: it stores each as an ask of
// the calling agent and waits for the person.
type mcpAsker struct {
	s   *Server
	mcp *mcpserver.Server
}

// Ask stores the call as an ask of the agent of the request and waits
// until it ends, sending progress that names the inbox. The ask's ids
// are the MCP session and the arguments' hash: the same call made again
// in the session (a host that timed out and is called again, a model
// that retries) attaches to the same ask, and gets the person's reply
// when it came meanwhile. When the call ends without a reply (the client
// cancelled it or went away) the ask stays in the inbox for that replay;
// when the hub stops, it is withdrawn.
func (m *mcpAsker) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	s := m.s
	req := mcpserver.ToolCall(ctx)
	var agent store.Agent
	ok := false
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		agent, ok = req.Extra.TokenInfo.Extra["agent"].(store.Agent)
	}
	if !ok {
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "a call reached the hub's MCP provider without an agent"}
	}
	sum := sha256.Sum256([]byte(call.Arguments()))
	session := "mcp"
	if req.Session != nil {
		session = "mcp:" + req.Session.ID()
	}
	a, _, err := s.storeAsk(ctx, agent, session, "args:"+hex.EncodeToString(sum[:]), call.Arguments(), call.JSON())
	if err != nil {
		return askcore.Reply{}, m.storeFailed(ctx, err)
	}
	inbox := ""
	if s.base != "" {
		inbox = s.base + "/"
	}
	stop := m.mcp.Progress(ctx, inbox)
	defer stop()
	wake, unwatch := s.store.Watch(store.AskKey(a.ID))
	defer unwatch()
	// Read again after watching: a reply between the create and the watch
	// is not missed.
	if a, err = s.store.Ask(ctx, a.ID); err != nil {
		return askcore.Reply{}, m.storeFailed(ctx, err)
	}
	for a.State == store.StatePending {
		select {
		case <-s.closing:
			return askcore.Reply{}, m.stopped(ctx, a)
		default:
		}
		if a, err = s.waitAsk(ctx, a, MaxWait*time.Second, wake); err != nil {
			return askcore.Reply{}, m.storeFailed(ctx, err)
		}
	}
	return outcome(a)
}

// storeFailed is the end of a call whose ask the store could not keep:
// the caller's own end when ctx is done.
func (m *mcpAsker) storeFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(err, store.ErrConflict) { // a hash collision of arguments
		return askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "the hub holds another question under these ids"}
	}
	m.s.log.Error("store", "err", err)
	return askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: "the hub's store failed"}
}

// stopped withdraws the ask of a call the stopping hub ends, so the
// inbox no longer offers a question whose answer could not arrive.
func (m *mcpAsker) stopped(ctx context.Context, a store.Ask) error {
	s := m.s
	_, _, err := s.store.Withdraw(context.WithoutCancel(ctx), store.Transition{AskID: a.ID, Who: a.AgentName, Where: store.WhereAgent, At: s.now()})
	if err != nil {
		s.log.Error("withdrawing an MCP ask at stop", "ask", a.ID, "err", err)
	}
	return askcore.Failure{Situation: askcore.SituationStopped, Detail: "askcore-hub stopped"}
}

// outcome is what an ended ask gives the call's seam.
func outcome(a store.Ask) (askcore.Reply, error) {
	return wire.Outcome(wireAsk(a))
}
