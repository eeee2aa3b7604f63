// Package coretest has the native core write what a test compares a
// surface's bytes with: the answer to a call for a reply, or the error
// object of a failure, exactly as the core writes them.
package coretest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

var core = askcore.NewCore(nil)

// Answer is the core's answer to arguments for reply; the test fails if
// the core refuses either.
func Answer(t testing.TB, arguments string, reply askcore.Reply) string {
	t.Helper()
	ctx := context.Background()
	call, err := core.Normalize(ctx, arguments)
	require.NoError(t, err)
	a, err := call.Resolve(ctx, reply)
	require.NoError(t, err)
	return string(a.JSON())
}

// FormAnswer is what the core writes for arguments answered with the form
// reply reply: the answer, or the error object (isError) when the core
// refuses the reply.
func FormAnswer(t testing.TB, arguments, reply string) (answer []byte, isError bool) {
	t.Helper()
	return resolve(t, arguments, askcore.FormReply(json.RawMessage(reply)))
}

// Resolved is what the core writes for arguments answered with reply, as
// the seam resolves what a surface gave: the answer, or the error object
// when the core refuses the reply.
func Resolved(t testing.TB, arguments string, reply askcore.Reply) string {
	t.Helper()
	b, _ := resolve(t, arguments, reply)
	return string(b)
}

func resolve(t testing.TB, arguments string, reply askcore.Reply) ([]byte, bool) {
	t.Helper()
	ctx := context.Background()
	call, err := core.Normalize(ctx, arguments)
	require.NoError(t, err)
	res, err := call.Resolve(ctx, reply)
	if err != nil {
		return askcore.ErrorJSON(err), true
	}
	return res.JSON(), false
}

// Failure is the core's error object for f.
func Failure(f askcore.Failure) string {
	return string(core.Fail(context.Background(), f).JSON())
}
