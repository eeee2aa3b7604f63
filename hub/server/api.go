package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hub/internal/wire"
	"github.com/askcore/askcore/hub/store"
)

// maxBody bounds a POST /v1/asks body: the core's limit on the arguments
// text, as JSON could escape it at worst (\u00XX, six bytes a byte), plus
// the ids. The arguments themselves are judged by the core, by their
// length as the model wrote them.
const maxBody = 6*core.MaxArgumentsBytes + 4*MaxIDBytes + 1024

// maxTokenBytes bounds an Authorization header's token before hashing.
const maxTokenBytes = 200

// authenticate returns the agent of the request's Bearer token, or writes
// the refusal: 401 for a missing, wrong or revoked token (the same
// message for all three), 429 once a client address failed too often,
// 403 for a browser (the agent API is not for pages).
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (store.Agent, bool) {
	now := s.now()
	addr := clientAddr(r)
	if r.Header.Get("Origin") != "" {
		WriteError(w, http.StatusForbidden, hubError(codeFor(http.StatusForbidden), "the agent API does not serve web pages (the request has an Origin header)"))
		return store.Agent{}, false
	}
	if s.authLimits.exhausted(addr, now) {
		WriteError(w, http.StatusTooManyRequests, hubError(codeFor(http.StatusTooManyRequests), "too many failed authentications from this address; wait and try again"))
		return store.Agent{}, false
	}
	fail := func() (store.Agent, bool) {
		s.metrics.inc(&s.metrics.authFail)
		s.authLimits.allow(addr, now)
		w.Header().Set("WWW-Authenticate", `Bearer realm="askcore-hub"`)
		WriteError(w, http.StatusUnauthorized, hubError(codeFor(http.StatusUnauthorized), "a valid agent token is required: Authorization: Bearer TOKEN (askcore-hub agent add NAME prints one)"))
		return store.Agent{}, false
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" || len(token) > maxTokenBytes || !strings.HasPrefix(token, AgentTokenPrefix) {
		return fail()
	}
	hash := HashToken(token)
	a, err := s.store.AgentByTokenHash(r.Context(), hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fail()
	case err != nil:
		s.unavailable(w, err)
		return store.Agent{}, false
	}
	if subtle.ConstantTimeCompare([]byte(a.TokenHash), []byte(hash)) != 1 || a.Revoked() {
		return fail()
	}
	if !s.agentLimits.allow(strconv.FormatInt(a.ID, 10), now) {
		w.Header().Set("Retry-After", "1")
		WriteError(w, http.StatusTooManyRequests, hubError(codeFor(http.StatusTooManyRequests), "too many requests from this agent; slow down"))
		return store.Agent{}, false
	}
	return a, true
}

func (s *Server) unavailable(w http.ResponseWriter, err error) {
	s.log.Error("store", "err", err)
	WriteError(w, http.StatusServiceUnavailable, hubError(codeFor(http.StatusServiceUnavailable), "the hub's store failed; try again"))
}

func badRequest(w http.ResponseWriter, msg string) {
	WriteError(w, http.StatusBadRequest, hubError(wire.CodeBadRequest, msg))
}

// createAsk is POST /v1/asks: 201 with a new ask, 200 with the ask the
// same ids made before (the same arguments), 409 for other arguments.
func (s *Server) createAsk(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		WriteError(w, http.StatusUnsupportedMediaType, hubError(wire.CodeBadRequest, "the body is application/json"))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		WriteError(w, http.StatusRequestEntityTooLarge, hubError(codeFor(http.StatusRequestEntityTooLarge), "the body is over "+strconv.Itoa(maxBody)+" bytes"))
		return
	case err != nil:
		badRequest(w, "reading the body: "+err.Error())
		return
	}
	var req wire.CreateAsk
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		badRequest(w, `the body is {"arguments": TEXT, "toolCallId": ID, "sessionId"?: ID}`)
		return
	}
	if req.ToolCallID == "" || len(req.ToolCallID) > MaxIDBytes || len(req.SessionID) > MaxIDBytes ||
		!utf8.ValidString(req.ToolCallID) || !utf8.ValidString(req.SessionID) {
		badRequest(w, "toolCallId is required; toolCallId and sessionId are UTF-8 of at most "+strconv.Itoa(MaxIDBytes)+" bytes")
		return
	}
	call, err := s.core.Normalize(r.Context(), req.Arguments)
	if err != nil {
		var e *askcore.Error
		if errors.As(err, &e) {
			WriteError(w, http.StatusBadRequest, e)
			return
		}
		s.log.Error("normalize", "err", err)
		WriteError(w, http.StatusServiceUnavailable, s.core.Fail(r.Context(), askcore.Failure{Situation: askcore.SituationEngineFault}))
		return
	}
	a, created, err := s.storeAsk(r.Context(), agent, req.SessionID, req.ToolCallID, req.Arguments, call.JSON())
	switch {
	case errors.Is(err, store.ErrConflict):
		WriteError(w, http.StatusConflict, hubError(wire.CodeConflict,
			"this agent asked with this session and tool call id before, with other arguments: a tool call id names one call"))
		return
	case err != nil:
		s.unavailable(w, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, wireAsk(a))
}

// storeAsk stores the agent's ask (call: the arguments as the hub's core
// normalized them), or finds the one the same ids made before
// (store.ErrConflict for other arguments). A new ask gets the agent's
// deadline, and the store notifies the person.
func (s *Server) storeAsk(ctx context.Context, agent store.Agent, sessionID, toolCallID, arguments string, call json.RawMessage) (store.Ask, bool, error) {
	now := s.now()
	n := store.NewAsk{AgentID: agent.ID, SessionID: sessionID, ToolCallID: toolCallID,
		Arguments: arguments, Call: call, Who: agent.Name, At: now}
	if agent.Deadline > 0 {
		n.ExpiresAt = now.Add(agent.Deadline)
	}
	a, created, err := s.store.CreateAsk(ctx, n)
	if err == nil && created {
		s.metrics.inc(&s.metrics.created)
		s.log.Info("ask created", "ask", a.ID, "agent", agent.Name)
	}
	if err == nil && !created && a.State == store.StatePending {
		// A program attached again (a re-run after a crash): the inbox
		// shows it waits.
		if merr := s.store.MarkWaiting(ctx, a.ID, now); merr == nil {
			a.WaitingUntil = now
		}
	}
	return a, created, err
}

func wireAsk(a store.Ask) wire.Ask {
	w := wire.Ask{ID: a.ID, State: string(a.State), Call: a.Call}
	if a.State == store.StateReplied {
		w.Reply = a.Reply
	}
	if !a.ExpiresAt.IsZero() {
		w.DeadlineMs = a.ExpiresAt.Sub(a.CreatedAt).Milliseconds()
	}
	return w
}

// ownAsk reads the ask of the path, or writes 404: an ask of another
// agent does not exist for this one.
func (s *Server) ownAsk(w http.ResponseWriter, r *http.Request, agent store.Agent) (store.Ask, bool) {
	a, err := s.store.Ask(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && a.AgentID != agent.ID:
		WriteError(w, http.StatusNotFound, hubError(wire.CodeNotFound, "this agent has no ask "+quote(r.PathValue("id"))))
		return store.Ask{}, false
	case err != nil:
		s.unavailable(w, err)
		return store.Ask{}, false
	}
	return a, true
}

// getAsk is GET /v1/asks/{id}?wait=SECONDS: the ask's state, once it
// leaves pending or when the wait ends. It changes nothing.
func (s *Server) getAsk(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	var wait time.Duration
	if v := r.URL.Query().Get("wait"); v != "" {
		sec, err := strconv.ParseFloat(v, 64)
		if err != nil || sec < 0 || sec > MaxWait || sec != sec {
			badRequest(w, "wait is a number of seconds from 0 to "+strconv.Itoa(MaxWait))
			return
		}
		wait = time.Duration(sec * float64(time.Second))
	}
	if wait > 0 {
		holdOpen(w) // the wait may outlast the server's read timeout
	}
	// Watch before reading, so that a change between the read and the
	// wait is not missed.
	wake, stop := s.store.Watch(store.AskKey(r.PathValue("id")))
	defer stop()
	a, ok := s.ownAsk(w, r, agent)
	if !ok {
		return
	}
	if a.State == store.StatePending {
		// The inbox tells whether the asking program still waits: it does
		// until this poll ends. (A failure only leaves the inbox's word
		// older.)
		_ = s.store.MarkWaiting(r.Context(), a.ID, s.now().Add(wait))
	}
	a, err := s.waitAsk(r.Context(), a, wait, wake)
	if err != nil {
		if r.Context().Err() != nil {
			return // the agent went away
		}
		s.unavailable(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wireAsk(a))
}

// waitAsk re-reads a pending ask on every wake-up until it leaves
// pending, the wait ends, or the server closes.
func (s *Server) waitAsk(ctx context.Context, a store.Ask, wait time.Duration, wake <-chan struct{}) (store.Ask, error) {
	if a.State != store.StatePending || wait <= 0 {
		return a, nil
	}
	s.metrics.addPolls(1)
	defer s.metrics.addPolls(-1)
	end := time.NewTimer(wait)
	defer end.Stop()
	// At its deadline the ask is expired by the clock (Run): look again
	// just after it, in case no wake-up comes from another replica.
	var deadline <-chan time.Time
	if !a.ExpiresAt.IsZero() {
		t := time.NewTimer(max(a.ExpiresAt.Sub(s.now())+s.expire, 0))
		defer t.Stop()
		deadline = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return a, ctx.Err()
		case <-s.closing:
			return a, nil
		case <-end.C:
			return a, nil
		case <-deadline:
			deadline = nil
		case <-wake:
		}
		next, err := s.store.Ask(ctx, a.ID)
		if err != nil {
			return a, err
		}
		if a = next; a.State != store.StatePending {
			return a, nil
		}
	}
}

// deleteAsk is DELETE /v1/asks/{id}: the agent withdraws its ask. An
// optional body {"answeredIn": "the terminal"} says the person answered
// on the agent's own surface, so the inbox can say where. The answer is
// the ask's state after it: withdrawn, or how it ended first.
func (s *Server) deleteAsk(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	a, ok := s.ownAsk(w, r, agent)
	if !ok {
		return
	}
	where := store.WhereAgent
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1024))
	if err != nil {
		WriteError(w, http.StatusRequestEntityTooLarge, hubError(wire.CodeTooLarge, "a withdrawal's body is at most 1024 bytes"))
		return
	}
	if len(bytes.TrimSpace(body)) > 0 {
		var wd wire.Withdrawal
		if err := json.Unmarshal(body, &wd); err != nil || !wire.ValidSurfaceName(wd.AnsweredIn) {
			badRequest(w, `a withdrawal's body is {"answeredIn": "<the surface, at most 64 printable characters>"}`)
			return
		}
		where = wd.AnsweredIn
	}
	a, won, err := s.store.Withdraw(r.Context(), store.Transition{AskID: a.ID, Who: agent.Name, Where: where, At: s.now()})
	if err != nil {
		s.unavailable(w, err)
		return
	}
	if won {
		s.log.Info("ask withdrawn", "ask", a.ID, "agent", agent.Name)
	}
	writeJSON(w, http.StatusOK, wireAsk(a))
}
