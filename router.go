package askcore

import (
	"errors"
	"fmt"
	"sync"
)

// Router is the agent -> session reverse map of a front door that routes
// questions by session (the ACP front door): a provider asks
// SessionOf(q.From.AgentID) where the question must go. A session holds
// any number of agents: the agent the session was created with, and the
// sub-agents that code running in the session creates (BindSubAgent,
// frontdoor.Runtime.NewSubAgent). Closing a session unbinds them all
// (UnbindSession), so their later questions are SESSION_NOT_FOUND.
//
// An agent is bound to one session at a time: binding an agent ID that is
// already bound is an error, never a silent move, so that an ID reused by
// mistake cannot send another session's questions to this one.
//
// The zero Router is ready to use; it is safe for concurrent use.
type Router struct {
	mu       sync.Mutex
	agents   map[string]*binding            // agent ID -> its binding
	sessions map[string]map[string]*binding // session ID -> agent ID -> binding
}

// binding is one Bind; unbind funcs compare it so that a stale unbind
// (after UnbindSession, or once the ID was bound again) does nothing.
type binding struct {
	agentID, sessionID string
}

// Errors of Bind and BindSubAgent (use errors.Is).
var (
	// ErrAlreadyBound: the agent ID is bound to a session already.
	ErrAlreadyBound = errors.New("askcore: the agent is already bound to a session")
	// ErrNotBound: the parent of a sub-agent is bound to no session.
	ErrNotBound = errors.New("askcore: the agent is bound to no session")
)

// Bind routes the questions of agentID to sessionID. unbind undoes this
// binding only (it is safe to call more than once, and after
// UnbindSession). An empty ID is an error, and so is an agent ID already
// bound (ErrAlreadyBound).
func (r *Router) Bind(agentID, sessionID string) (unbind func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bindLocked(agentID, sessionID)
}

// BindSubAgent binds agentID to the session parentAgentID is bound to, in
// one step (a session closing meanwhile cannot keep the sub-agent bound).
// It returns that session. The parent must be bound (ErrNotBound);
// agentID must not be (ErrAlreadyBound).
func (r *Router) BindSubAgent(parentAgentID, agentID string) (sessionID string, unbind func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	parent, ok := r.agents[parentAgentID]
	if !ok {
		return "", nil, fmt.Errorf("%w: parent agent %q", ErrNotBound, parentAgentID)
	}
	unbind, err = r.bindLocked(agentID, parent.sessionID)
	if err != nil {
		return "", nil, err
	}
	return parent.sessionID, unbind, nil
}

func (r *Router) bindLocked(agentID, sessionID string) (func(), error) {
	if agentID == "" || sessionID == "" {
		return nil, errors.New("askcore: Bind needs an agent ID and a session ID")
	}
	if b, ok := r.agents[agentID]; ok {
		return nil, fmt.Errorf("%w: agent %q is bound to session %q", ErrAlreadyBound, agentID, b.sessionID)
	}
	if r.agents == nil {
		r.agents = make(map[string]*binding)
		r.sessions = make(map[string]map[string]*binding)
	}
	b := &binding{agentID: agentID, sessionID: sessionID}
	r.agents[agentID] = b
	if r.sessions[sessionID] == nil {
		r.sessions[sessionID] = make(map[string]*binding)
	}
	r.sessions[sessionID][agentID] = b
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.agents[agentID] == b {
			r.removeLocked(b)
		}
	}, nil
}

// removeLocked drops b from both maps.
func (r *Router) removeLocked(b *binding) {
	delete(r.agents, b.agentID)
	if agents := r.sessions[b.sessionID]; agents != nil {
		delete(agents, b.agentID)
		if len(agents) == 0 {
			delete(r.sessions, b.sessionID)
		}
	}
}

// Unbind forgets agentID, whichever session it is bound to: its later
// questions are SESSION_NOT_FOUND. Unbinding an unbound agent does nothing.
func (r *Router) Unbind(agentID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b, ok := r.agents[agentID]; ok {
		r.removeLocked(b)
	}
}

// UnbindSession forgets every agent bound to sessionID (the session's
// agent and all its sub-agents).
func (r *Router) UnbindSession(sessionID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.sessions[sessionID] {
		delete(r.agents, b.agentID)
	}
	delete(r.sessions, sessionID)
}

// SessionOf returns the session agentID is bound to.
func (r *Router) SessionOf(agentID string) (sessionID string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.agents[agentID]
	if !ok {
		return "", false
	}
	return b.sessionID, true
}
