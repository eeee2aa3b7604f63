package hostgo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/askcore/askcore/core"
)

// hostileInputs are the hostile classes of core/hostile_hardening_test.go
// that the conformance corpus does not hold; the guest must answer each
// with native's bytes (docs/HARDENING.md).
func hostileInputs() [][]byte {
	norm := func(req string) string { return `{"op":"normalize","request":` + req + `}` }
	var ins []string
	for _, v := range []string{"1e999", "-0", "1", strings.Repeat("9", 100000)} {
		ins = append(ins, norm(`{"question":"q","allowCustom":`+v+`}`))
	}
	for _, a := range []string{"1e0", "-1", "0x1", "١", "Ⅰ", "NaN"} {
		ins = append(ins, `{"op":"resolve","request":{"question":"q","options":[{"label":"a"},{"label":"b"}],"allowCustom":false},"input":"`+a+`"}`)
	}
	for _, bad := range []string{"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc3"} {
		ins = append(ins, norm(`{"question":"q`+bad+`"}`))
	}
	for _, zw := range []string{`\u200b`, `\u2061`, `\u034f`, `\u3164`, `\ufeff`, `\udb40\udc41`} {
		ins = append(ins, norm(`{"question":"q","options":[{"label":"Yes"},{"label":"Y`+zw+`es"}]}`))
	}
	esc := `\u001b`
	ins = append(ins,
		norm(`{"question":"`+esc+`]8;;https://evil.example`+esc+`\\click`+esc+`]8;;`+esc+`\\"}`),
		norm(`{"question":"`+esc+`]52;c;cm0gLXJmIH4=\u0007q`+esc+`[6n"}`),
		norm(`{"question":"`+strings.Repeat(esc+"[", 5000)+`q"}`),
		norm(`{"question":"`+strings.Repeat(`\ud800`, 2000)+`"}`),
	)
	var wide strings.Builder
	wide.WriteString(`{"question":"q"`)
	for i := range 10000 {
		fmt.Fprintf(&wide, `,"k%d":[{"x":1}]`, i)
	}
	wide.WriteString(`}`)
	ins = append(ins, norm(wide.String()), norm(`{"question":"q","options":[`+strings.Repeat(`{"label":""},`, 3000)+`{"label":"x"}]}`))
	out := make([][]byte, len(ins))
	for i, s := range ins {
		out[i] = []byte(s)
	}
	return out
}

func TestHostileInputsMatchNative(t *testing.T) {
	e := sharedEngine(t, "compiler")
	for i, in := range hostileInputs() {
		out, err := e.Handle(context.Background(), in)
		same(t, fmt.Sprintf("hostile #%d", i), in, core.Handle(in), out, err)
	}
}
