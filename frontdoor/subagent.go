package frontdoor

import (
	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
)

// NewSubAgent returns an agent that shares the session of the agent
// parentAgentID (its questions reach the same person, in the same session):
// for code running in a session, such as a tool that delegates a task
// (the from a ToolHandler receives names the calling agent). The sub-agent has the
// runtime's model and tools and the system prompt, like NewAgent, its own
// history and the given hooks; it is bound to the parent's session on
// router (askcore.Router.BindSubAgent), the reverse map the front
// door's provider routes questions with.
//
// release unbinds the sub-agent (call it when the sub-agent is done; it is
// safe to call more than once). Closing the session unbinds it too: its
// later questions are SESSION_NOT_FOUND. It is an error when the parent is
// bound to no session (askcore.ErrNotBound) or id is bound already
// (askcore.ErrAlreadyBound).
func (r *Runtime) NewSubAgent(router *askcore.Router, parentAgentID, id string, hooks agent.Hooks) (sub *agent.Agent, release func(), err error) {
	sessionID, release, err := router.BindSubAgent(parentAgentID, id)
	if err != nil {
		return nil, nil, err
	}
	return r.NewAgent(id, sessionID, hooks), release, nil
}
