package core

import (
	"fmt"
	"testing"
)

// The core's tests use the standard library (and x/text's norm, the
// reference the comparison key's generated table is checked against) with
// these small helpers in place of testify.
type requireT struct{}

var require requireT

func msg(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if f, ok := args[0].(string); ok {
		return ": " + fmt.Sprintf(f, args[1:]...)
	}
	return ": " + fmt.Sprint(args...)
}

func (requireT) NoError(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v%s", err, msg(args))
	}
}

func (requireT) True(t testing.TB, v bool, args ...any) {
	t.Helper()
	if !v {
		t.Fatalf("expected true%s", msg(args))
	}
}

func (requireT) False(t testing.TB, v bool, args ...any) {
	t.Helper()
	if v {
		t.Fatalf("expected false%s", msg(args))
	}
}

func (requireT) Equal(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if fmt.Sprintf("%#v", want) != fmt.Sprintf("%#v", got) {
		t.Fatalf("not equal%s\nwant: %#v\n got: %#v", msg(args), want, got)
	}
}

func (requireT) GreaterOrEqual(t testing.TB, a, b int, args ...any) {
	t.Helper()
	if a < b {
		t.Fatalf("%d < %d%s", a, b, msg(args))
	}
}
