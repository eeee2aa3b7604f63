package notify

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/askcore/askcore"
)

// What the model and the agent wrote is text in the mail's HTML part,
// never markup: a <script> and a " in each field come out escaped, in a
// question with answer links and in a batch.
func TestMailHTMLEscapesText(t *testing.T) {
	hostile := func(field string) string { return `<script>alert("` + field + `")</script>` }
	escaped := func(field string) string { return `&lt;script&gt;alert(&#34;` + field + `&#34;)&lt;/script&gt;` }
	q := askcore.Question{Header: hostile("header"), Question: hostile("question"), Options: []askcore.Option{
		{Label: hostile("label"), Description: hostile("description"), Preview: hostile("preview"), Recommended: true},
		{Label: "Other"},
	}}
	links := []AnswerLink{{URL: "https://hub.example/a/acl_1"}, {URL: "https://hub.example/a/acl_2"}}
	for name, v := range map[string]mailView{
		"one question": {Agent: hostile("agent"), Questions: []askcore.Question{q}, Links: links, InboxURL: "https://hub.example/"},
		"batch":        {Agent: hostile("agent"), Questions: []askcore.Question{q, q}, Batch: true, InboxURL: "https://hub.example/"},
	} {
		html := v.HTML()
		for _, f := range []string{"agent", "header", "question", "label", "description", "preview"} {
			assert.Contains(t, html, escaped(f), "%s: %s", name, f)
		}
		assert.NotContains(t, html, "<script", name)
		assert.NotContains(t, html, `alert("`, name)
	}
}
