package askcore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

func sessionOf(r *askcore.Router, agentID string) string {
	s, ok := r.SessionOf(agentID)
	if !ok {
		return "<unbound>"
	}
	return s
}

func TestRouterBindAndUnbind(t *testing.T) {
	var r askcore.Router // the zero Router is ready
	assert.Equal(t, "<unbound>", sessionOf(&r, "a1"))

	unbind1, err := r.Bind("a1", "s1")
	require.NoError(t, err)
	_, err = r.Bind("a2", "s2")
	require.NoError(t, err)
	assert.Equal(t, "s1", sessionOf(&r, "a1"))
	assert.Equal(t, "s2", sessionOf(&r, "a2"))

	unbind1()
	assert.Equal(t, "<unbound>", sessionOf(&r, "a1"))
	assert.Equal(t, "s2", sessionOf(&r, "a2"))
	unbind1() // twice is fine

	r.Unbind("a2")
	assert.Equal(t, "<unbound>", sessionOf(&r, "a2"))
	r.Unbind("a2") // unbinding an unbound agent does nothing
}

// An agent ID that is bound already is refused, never moved: a reused ID
// must not pull another session's questions.
func TestRouterRefusesBoundAgent(t *testing.T) {
	var r askcore.Router
	_, err := r.Bind("a1", "s1")
	require.NoError(t, err)
	_, err = r.Bind("a1", "s2")
	require.ErrorIs(t, err, askcore.ErrAlreadyBound)
	_, err = r.Bind("a1", "s1")
	require.ErrorIs(t, err, askcore.ErrAlreadyBound)
	assert.Equal(t, "s1", sessionOf(&r, "a1"))

	_, err = r.Bind("", "s1")
	assert.Error(t, err)
	_, err = r.Bind("a3", "")
	assert.Error(t, err)
	assert.Equal(t, "<unbound>", sessionOf(&r, ""))
	assert.Equal(t, "<unbound>", sessionOf(&r, "a3"))
}

// An unbind func undoes its own binding only: once the session was closed
// and the ID bound again, the old unbind leaves the new binding alone.
func TestRouterStaleUnbindDoesNothing(t *testing.T) {
	var r askcore.Router
	old, err := r.Bind("a1", "s1")
	require.NoError(t, err)
	r.UnbindSession("s1")
	_, err = r.Bind("a1", "s2")
	require.NoError(t, err)
	old()
	assert.Equal(t, "s2", sessionOf(&r, "a1"))
}

func TestRouterSubAgents(t *testing.T) {
	var r askcore.Router
	_, err := r.Bind("parent", "s1")
	require.NoError(t, err)
	_, err = r.Bind("other", "s2")
	require.NoError(t, err)

	sid, unbindSub, err := r.BindSubAgent("parent", "sub-1")
	require.NoError(t, err)
	assert.Equal(t, "s1", sid)
	// A sub-agent of a sub-agent joins the same session.
	sid, _, err = r.BindSubAgent("sub-1", "sub-1-1")
	require.NoError(t, err)
	assert.Equal(t, "s1", sid)
	assert.Equal(t, "s1", sessionOf(&r, "sub-1"))
	assert.Equal(t, "s1", sessionOf(&r, "sub-1-1"))

	_, _, err = r.BindSubAgent("nobody", "sub-2")
	require.ErrorIs(t, err, askcore.ErrNotBound)
	assert.Equal(t, "<unbound>", sessionOf(&r, "sub-2"))
	_, _, err = r.BindSubAgent("parent", "other")
	require.ErrorIs(t, err, askcore.ErrAlreadyBound)
	assert.Equal(t, "s2", sessionOf(&r, "other"))

	// A sub-agent can leave before its session closes.
	unbindSub()
	assert.Equal(t, "<unbound>", sessionOf(&r, "sub-1"))
	assert.Equal(t, "s1", sessionOf(&r, "parent"))
	_, _, err = r.BindSubAgent("parent", "sub-3")
	require.NoError(t, err)

	// Closing the session unbinds every agent of it, and only those.
	r.UnbindSession("s1")
	for _, id := range []string{"parent", "sub-1-1", "sub-3"} {
		assert.Equal(t, "<unbound>", sessionOf(&r, id), id)
	}
	assert.Equal(t, "s2", sessionOf(&r, "other"))
	_, _, err = r.BindSubAgent("parent", "sub-4")
	require.ErrorIs(t, err, askcore.ErrNotBound)
	r.UnbindSession("s1") // closing twice does nothing
}

// Sessions opening sub-agents and closing concurrently: every agent reads
// its own session while it is open, and nothing of a session survives its
// close, even a sub-agent bound while the session was closing.
func TestRouterConcurrentSessionsNeverCross(t *testing.T) {
	const sessions, subs = 32, 16
	var r askcore.Router
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sid, parent := fmt.Sprintf("s%d", i), fmt.Sprintf("a%d", i)
			if _, err := r.Bind(parent, sid); !assert.NoError(t, err) {
				return
			}
			for j := range subs {
				got, _, err := r.BindSubAgent(parent, fmt.Sprintf("%s/%d", parent, j))
				if assert.NoError(t, err) {
					assert.Equal(t, sid, got)
				}
			}
			for j := range subs {
				assert.Equal(t, sid, sessionOf(&r, fmt.Sprintf("%s/%d", parent, j)))
			}
			// A late sub-agent races the session's close.
			late := make(chan struct{})
			go func() {
				defer close(late)
				if got, _, err := r.BindSubAgent(parent, parent+"/late"); err == nil {
					assert.Equal(t, sid, got)
				} else {
					assert.ErrorIs(t, err, askcore.ErrNotBound)
				}
			}()
			r.UnbindSession(sid)
			<-late
			for _, id := range []string{parent, parent + "/late", parent + "/0", fmt.Sprintf("%s/%d", parent, subs-1)} {
				if s, ok := r.SessionOf(id); ok {
					t.Errorf("%s is still bound to %s after its session closed", id, s)
				}
			}
		}()
	}
	wg.Wait()
}

// A session that is bound again after it closed starts empty: the agents
// of its earlier life stay unbound.
func TestRouterSessionReopened(t *testing.T) {
	var r askcore.Router
	_, err := r.Bind("a1", "s1")
	require.NoError(t, err)
	_, _, err = r.BindSubAgent("a1", "a1/sub")
	require.NoError(t, err)
	r.UnbindSession("s1")
	_, err = r.Bind("a2", "s1")
	require.NoError(t, err)
	assert.Equal(t, "s1", sessionOf(&r, "a2"))
	assert.Equal(t, "<unbound>", sessionOf(&r, "a1"))
	assert.Equal(t, "<unbound>", sessionOf(&r, "a1/sub"))
	r.UnbindSession("s1")
	assert.Equal(t, "<unbound>", sessionOf(&r, "a2"))
}
