package termui

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// 200 questions asked at once on one terminal: they are shown one at a
// time, each typed line answers the question on screen (answered here with
// text naming that question), none is lost or crossed; then 100 more are
// queued and stdin closes: every one is ASK_ABORTED at once.
func TestManyQueuedQuestions(t *testing.T) {
	const n = 200
	h := newHarness(t, false)
	results := make([]<-chan askResult, n)
	for i := range results {
		results[i] = h.ask(context.Background(), fmt.Sprintf(`{"question":"Question %d?"}`, i))
	}
	h.waitFor("all questions queued", func(string) bool { return h.prov.q.waiting() == n-1 })
	shown := regexp.MustCompile(`Question (\d+)\?`)
	seen := map[string]bool{}
	for k := range n {
		out := stripSGR(h.waitPrompts(k + 1))
		all := shown.FindAllStringSubmatch(out, -1)
		require.Len(t, all, k+1, "one question on screen at a time")
		id := all[k][1]
		require.False(t, seen[id], "question %s shown twice", id)
		seen[id] = true
		h.send("answer " + id)
	}
	for i, ch := range results {
		r := result(t, ch)
		require.NoError(t, r.err, "question %d", i)
		assert.Equal(t, fmt.Sprintf(`{"answer":"answer %d"}`, i), string(r.res.JSON()), "question %d got another question's line", i)
	}

	more := make([]<-chan askResult, 100)
	for i := range more {
		more[i] = h.ask(context.Background(), fmt.Sprintf(`{"question":"Later %d?"}`, i))
	}
	h.waitFor("100 more queued", func(string) bool { return h.prov.q.waiting() == len(more)-1 })
	require.NoError(t, h.pw.Close())
	for _, ch := range more {
		requireFailure(t, result(t, ch).err, askcore.Failure{Situation: askcore.SituationEOF})
	}
}
