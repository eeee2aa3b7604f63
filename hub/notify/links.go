package notify

import (
	"context"
	"strings"
	"time"

	"github.com/askcore/askcore/hub/store"
)

// answerLinks makes one answer link per option of a's one question, for
// a notification that travels via (store.ViaEmail, ...): each token is
// new, kept only hashed, and good for this ask alone. path is
// store.LinkPath (a page with a confirm button) or store.ButtonPath (an
// ntfy button's one POST). An ask whose options are not each a whole
// answer (a batch, a multi-select, no options) gets none.
//
// A retried notification makes new links: the hub cannot read a token
// back from its hash, and the links of an attempt that failed half-way
// are as good as the new ones (the same ask, the same options).
func (n *Notifier) answerLinks(ctx context.Context, a store.Ask, via, path string) ([]AnswerLink, error) {
	c := parseCall(a.Call)
	if !c.linkable() {
		return nil, nil
	}
	base := strings.TrimSuffix(n.o.InboxURL, "/")
	now := time.Now()
	var links []AnswerLink
	var rows []store.AnswerLink
	for i, o := range c.Questions[0].Options {
		token, hash := store.NewAnswerLinkToken()
		links = append(links, AnswerLink{Label: o.Label, Value: o.Value, URL: base + path + token})
		rows = append(rows, store.AnswerLink{TokenHash: hash, AskID: a.ID, Option: i, Via: via, CreatedAt: now})
	}
	if err := n.o.Store.CreateAnswerLinks(ctx, rows); err != nil {
		return nil, err
	}
	return links, nil
}
