package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	g "maragu.dev/gomponents"

	"github.com/askcore/askcore"
)

// What a model, an agent or a person wrote is text on every page the hub
// renders, never markup: a <script> and a " in each field come out
// escaped. The link page's style is linkCSS byte for byte, the bytes its
// policy allows by hash.
func TestPagesEscapeText(t *testing.T) {
	hostile := func(field string) string { return `<script>alert("` + field + `")</script>` }
	escaped := func(field string) string { return `&lt;script&gt;alert(&#34;` + field + `&#34;)&lt;/script&gt;` }
	render := func(n g.Node) string {
		var b strings.Builder
		require.NoError(t, n.Render(&b))
		return b.String()
	}
	q := askcore.Question{Header: hostile("header"), Question: hostile("question"), Options: []askcore.Option{
		{Label: hostile("label"), Description: hostile("description"), Preview: hostile("preview"), Recommended: true},
	}}
	pending := render(linkPage(linkView{Agent: hostile("agent"), Question: q, Option: q.Options[0], Pending: true, Form: "form", Inbox: "https://hub.example/"}))
	for _, c := range []struct {
		name, page string
		fields     []string
	}{
		{"link page", pending, []string{"agent", "header", "question", "label", "description", "preview"}},
		{"link page, ended", render(linkPage(linkView{Agent: hostile("agent"), Question: q, Option: q.Options[0], Title: "Your answer was sent", Outcome: hostile("outcome")})),
			[]string{"agent", "header", "question", "outcome"}},
		{"inbox", render(inboxPage(inboxData{CSRF: "csrf", Person: hostile("person")})), []string{"person"}},
		{"sign-in page", render(signinPage(signinData{Message: hostile("message"), Reopen: true})), []string{"message"}},
	} {
		for _, f := range c.fields {
			assert.Contains(t, c.page, escaped(f), "%s: %s", c.name, f)
		}
		assert.NotContains(t, c.page, "<script>", c.name)
		assert.NotContains(t, c.page, `alert("`, c.name)
	}
	assert.Contains(t, pending, "<style>"+linkCSS+"</style>")
	assert.Contains(t, pending, "Answer “"+escaped("label")+"”")
}
