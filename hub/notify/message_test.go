package notify_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"

	"github.com/askcore/askcore/hub/notify"
)

// A subject is one line of text whatever the model (or an agent's name)
// holds: no CR, LF or other control character can start a header.
func TestSubject(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, c := range []struct {
		name, agent, call, want string
	}{
		{"header", "laptop", `{"header":"Database","question":"Which?","options":[]}`, "laptop asks: Database"},
		{"question's start", "laptop", `{"question":"Which database?","options":[]}`, "laptop asks: Which database?"},
		{"CR LF in the header", "laptop", `{"header":"Deploy\r\nBcc: evil@example.com","question":"?","options":[]}`, "laptop asks: Deploy Bcc: evil@example.com"},
		{"control characters", "lap\x00top\x1b[31m", "{\"question\":\"a\\u0007b\\tc\\u2028d\",\"options\":[]}", "lap top [31m asks: a b c d"},
		{"batch", "ci", `{"questions":[{"question":"One?","options":[]},{"question":"Two?","options":[]}]}`, "ci asks: 2 questions: One?"},
		{"long", "ci", `{"question":` + mustJSON(long) + `,"options":[]}`, "ci asks: " + strings.TrimSpace(long[:77]) + "…"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := notify.Subject(c.agent, json.RawMessage(c.call))
			assert.Equal(t, c.want, got)
			assert.False(t, strings.ContainsFunc(got, unicode.IsControl), "%q", got)
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
