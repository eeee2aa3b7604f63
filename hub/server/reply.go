package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/internal/wire"
	"github.com/askcore/askcore/hub/store"
)

// ErrAskNotFound: no such ask among the person's agents' asks.
var ErrAskNotFound = errors.New("hub server: no such ask")

// EndedError is a reply to an ask that had ended already (replied from
// another device or replica, withdrawn, expired): Ask is how it ended.
// The inbox answers it 409 and shows the first outcome.
type EndedError struct{ Ask store.Ask }

func (e *EndedError) Error() string {
	if e.Ask.State == store.StateReplied {
		return fmt.Sprintf("the ask was answered already, by %s (%s)", e.Ask.RepliedBy, e.Ask.RepliedWhere)
	}
	return "the ask was " + string(e.Ask.State) + " already"
}

// Reply stores a person's reply to one of their agents' asks, once. reply
// is a reply shape ({"lines":[...]}, {"picks":[...]}, {"form":{...}},
// {"decline":true}); where says from where (a device, an address), for
// the log. The hub's core judges it first, as the agent's core will:
//
//   - *wire.Error (INVALID_REPLY): not a reply shape;
//   - *askcore.Error: the core refused it (INVALID_ANSWER with the words
//     for the person: show them and let the person answer again);
//   - ErrAskNotFound: no such ask of this person's;
//   - *EndedError: the ask had ended; its outcome is in the error.
//
// A declined or cancelled form is a reply like any other.
func (s *Server) Reply(ctx context.Context, personID int64, askID string, reply json.RawMessage, where string) (store.Ask, error) {
	parsed, canonical, err := wire.ParseReply(reply)
	if err != nil {
		return store.Ask{}, hubError(wire.CodeInvalidReply, err.Error())
	}
	a, err := s.store.Ask(ctx, askID)
	if errors.Is(err, store.ErrNotFound) || err == nil && a.PersonID != personID {
		return store.Ask{}, ErrAskNotFound
	}
	if err != nil {
		return store.Ask{}, err
	}
	if a.State != store.StatePending {
		return a, &EndedError{Ask: a}
	}
	if err := s.judge(ctx, a, parsed, canonical); err != nil {
		return a, err
	}
	person, err := s.store.Person(ctx, personID)
	if err != nil {
		return store.Ask{}, err
	}
	got, won, err := s.store.Reply(ctx, store.Transition{AskID: a.ID, Who: person.Name, Where: where, At: s.now(), Reply: canonical})
	if err != nil {
		return store.Ask{}, err
	}
	if !won {
		return got, &EndedError{Ask: got}
	}
	s.metrics.observeReply(got.UpdatedAt.Sub(got.CreatedAt))
	s.log.Info("ask replied", "ask", got.ID, "by", person.Name, "where", where)
	return got, nil
}

// judge has the hub's core judge the reply against the call, as the
// agent's core will resolve it: each line or pick by the words for the
// person (CheckLine, CheckPick), then the whole reply (Resolve).
func (s *Server) judge(ctx context.Context, a store.Ask, parsed askcore.Reply, canonical json.RawMessage) error {
	call, err := s.core.Normalize(ctx, a.Arguments)
	if err != nil {
		return err
	}
	var shape struct {
		Lines []string       `json:"lines"`
		Picks []askcore.Pick `json:"picks"`
	}
	_ = json.Unmarshal(canonical, &shape)
	for i, l := range shape.Lines {
		if i >= len(call.Questions) {
			break
		}
		if _, err := call.CheckLine(ctx, i, l); err != nil {
			return err
		}
	}
	for i, p := range shape.Picks {
		if i >= len(call.Questions) {
			break
		}
		if _, err := call.CheckPick(ctx, i, p); err != nil {
			return err
		}
	}
	_, err = call.Resolve(ctx, parsed)
	var e *askcore.Error
	if errors.As(err, &e) && (e.Code == askcore.CodeAskDeclined || e.Code == askcore.CodeAskCancelled) {
		return nil // the person's own choice
	}
	return err
}
