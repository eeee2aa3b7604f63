package askcore

import (
	"context"
	"errors"
	"strconv"
)

// Surface is one way to reach the person, for FirstReply: a provider and
// the name the core's messages give it ("the form", "the answer page",
// "the terminal").
type Surface struct {
	Name     string
	Provider Provider
}

// FirstReply returns a provider that puts the call to the person through
// every surface at once. The first surface to end the ask wins: its reply
// (or its error: the person dismissed the question there) is the
// outcome, and the others are withdrawn: their ctx is cancelled with the
// core's answered_elsewhere error (ASK_ABORTED, naming the winner) as its
// cause, so a terminal can say in the core's words why the question went
// away. A surface that could not show the question drops out while the
// others wait: one that fails with not_shown (FormNextSurface's error),
// no_form_support, no_terminal, session_not_found, no_provider or
// no_surface. When every surface dropped out, the ask fails with the
// core's no_surface error (ASK_FAILED), listing why each could not, in
// the order of the surfaces.
//
// Surfaces run on their own goroutines; FirstReply returns as soon as the
// outcome is known and does not wait for the withdrawn ones (a provider
// should return when its ctx is done, as Provider says).
func FirstReply(surfaces ...Surface) Provider {
	return firstReply(append([]Surface(nil), surfaces...))
}

// ErrContinues, wrapped in a surface's error, says the surface ended this
// call without an outcome because the question continues in a later call
// (an MCP client on 2026-07-28 gets the form in the call's result and
// calls again with the reply). FirstReply then ends with that error and
// cancels the other surfaces with it as the cause, instead of the core's
// answered_elsewhere: a surface that keeps questions elsewhere (a hub)
// leaves its question open for the next call.
var ErrContinues = errors.New("the question continues in a later call")

type firstReply []Surface

type surfaceResult struct {
	i     int
	reply Reply
	err   error
}

func (f firstReply) Ask(ctx context.Context, call *Call) (Reply, error) {
	if len(f) == 0 {
		return Reply{}, Failure{Situation: SituationNoSurface}
	}
	results := make(chan surfaceResult, len(f)) // buffered: a late surface never blocks
	cancels := make([]context.CancelCauseFunc, len(f))
	for i, s := range f {
		sctx, cancel := context.WithCancelCause(ctx)
		cancels[i] = cancel
		if s.Provider == nil {
			results <- surfaceResult{i: i, err: Failure{Situation: SituationNoProvider}}
			continue
		}
		go func() {
			r, err := callProvider(sctx, s.Provider, call)
			results <- surfaceResult{i, r, err}
		}()
	}
	var withdrawn error // the others' cause: nil (a plain cancel) unless a surface won
	defer func() {
		for _, cancel := range cancels {
			cancel(withdrawn)
		}
	}()
	reasons := make([]string, len(f)) // in surface order, whatever order they dropped out in
	for range f {
		select {
		case r := <-results:
			if reason, ok := droppedOut(ctx, call.Core(), r.err); ok {
				reasons[r.i] = surfaceName(f, r.i) + ": " + reason
				continue
			}
			if errors.Is(r.err, ErrContinues) {
				// Nobody answered: the question goes on in a later call,
				// and the others keep it open for that call.
				withdrawn = r.err
				return r.reply, r.err
			}
			// The others are withdrawn with the core's words for why.
			withdrawn = call.Core().Fail(ctx, Failure{Situation: SituationAnsweredElsewhere, Detail: surfaceName(f, r.i)})
			return r.reply, r.err
		case <-ctx.Done():
			return Reply{}, context.Cause(ctx)
		}
	}
	return Reply{}, Failure{Situation: SituationNoSurface, Reasons: reasons}
}

// surfaceName is the name of surface i, or its position when it has none.
func surfaceName(f firstReply, i int) string {
	if f[i].Name != "" {
		return f[i].Name
	}
	return "surface " + strconv.Itoa(i+1)
}

// dropOut lists the situations in which a surface could not show the
// question at all: the others may still reach the person.
var dropOut = map[Situation]bool{
	SituationNotShown:        true,
	SituationNoSurface:       true,
	SituationNoFormSupport:   true,
	SituationNoTerminal:      true,
	SituationSessionNotFound: true,
	SituationNoProvider:      true,
}

// DroppedOut reports whether err, a surface's error, says the surface
// could not show the question at all (the situations FirstReply lists),
// so that the question waits for the other surfaces.
func DroppedOut(err error) bool {
	var f Failure
	var e *Error
	switch {
	case errors.As(err, &f):
		return dropOut[f.Situation]
	case errors.As(err, &e) && e != nil:
		return dropOut[e.situation]
	}
	return false
}

// droppedOut reports whether err says its surface could not show the
// question, and why, in the core's words where the core wrote them.
func droppedOut(ctx context.Context, c *Core, err error) (string, bool) {
	if !DroppedOut(err) {
		return "", false
	}
	var f Failure
	if errors.As(err, &f) {
		return c.Fail(ctx, f).reason, true
	}
	var e *Error
	errors.As(err, &e)
	if e.reason != "" {
		return e.reason, true
	}
	return e.Message, true
}
