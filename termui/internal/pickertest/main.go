// Command pickertest runs the termui keyboard picker on the terminal it is
// started in, for the pseudo-terminal tests (termui/picker_tmux_test.go)
// and for trying the picker by hand:
//
//	go run ./termui/internal/pickertest -layout layout.json -out picks.json
//
// It reads a picker layout (the core's picker op result), asks on stdin and
// draws on stderr (-stdout: on stdout, as the chat does), and writes the
// picks as JSON to -out. Instead of the core, it checks each Enter itself:
// a pick with no option and no text, or the text "bad", is rejected with
// the -reject message. After the picker it leaves "→ " and the chosen labels
// as the summary line (the core's summary op does this for real).
//
// With -request instead of -layout, the core does the work a front door's
// provider does: it normalizes the request (the model's arguments), writes
// the layout (op picker), checks each Enter (Call.CheckPick: its
// INVALID_ANSWER message is shown), resolves the picks to the answer the
// model would receive (written to -out as "answer") and writes the summary
// left after the picker.
//
// Exit status: 0 answered, 5 declined (Esc), 6 interrupted (Ctrl-C), 1 any
// other error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/termui"
)

func main() { os.Exit(run()) }

func run() int {
	layoutFile := flag.String("layout", "", "the picker layout `JSON file`")
	requestFile := flag.String("request", "", "a request (the tool's arguments) `JSON file`: the core writes the layout, checks, resolves and summarizes")
	outFile := flag.String("out", "", "write the picks here (`file`) as JSON")
	reject := flag.String("reject", "Choose an option or type an answer.", "the message shown for a pick that is rejected")
	onStdout := flag.Bool("stdout", false, "draw on stdout instead of stderr")
	noise := flag.Int("noise", 0, "write this many lines of other output while the picker runs, as a model would in the chat")
	noiseEvery := flag.Duration("noise-every", 300*time.Millisecond, "time between two -noise lines")
	thenLine := flag.Bool("then-line", false, "after the picker, read one line from stdin and write it to -out.line")
	flag.Parse()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var call *askcore.Call
	var b []byte
	var err error
	if *requestFile != "" {
		args, rerr := os.ReadFile(*requestFile)
		if rerr != nil {
			fmt.Fprintln(os.Stderr, rerr)
			return 1
		}
		if call, err = askcore.NewCore(nil).Normalize(ctx, string(args)); err == nil {
			b, err = call.Picker(ctx)
		}
	} else {
		b, err = os.ReadFile(*layoutFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	layout, err := termui.DecodeLayout(b)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	outF := os.Stderr
	if *onStdout {
		outF = os.Stdout
	}
	out := termui.NewSyncWriter(outF)
	in, done := termui.TerminalInput(os.Stdin) // as the front doors read a terminal
	defer done()
	lines := termui.NewLines(in)
	defer lines.Close()
	// Colour as the core's terminal op decides it for the front doors.
	mode, err := askcore.NewCore(nil).Terminal(context.Background(), askcore.TerminalFacts{
		StdinTTY: termui.IsTerminal(os.Stdin), StderrTTY: termui.IsTerminal(outF), OutTTY: termui.IsTerminal(outF),
		Term: os.Getenv("TERM"), NoColor: os.Getenv("NO_COLOR"),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	t := termui.NewTerminal(lines, in, out, outF, termui.Style{Color: mode.Color})
	p, err := termui.NewPicker(t, layout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	if *noise > 0 {
		go func() {
			for i := 1; i <= *noise; i++ {
				select {
				case <-ctx.Done():
					return
				case <-time.After(*noiseEvery):
				}
				fmt.Fprintf(out, "model text %d: the quick brown fox\n", i)
			}
		}()
	}

	check := func(_ context.Context, q int, pk askcore.Pick) error {
		if len(pk.Options) == 0 && strings.TrimSpace(pk.Text) == "" || pk.Text == "bad" {
			return errors.New(*reject)
		}
		return nil
	}
	if call != nil {
		check = func(ctx context.Context, q int, pk askcore.Pick) error {
			_, err := call.CheckPick(ctx, q, pk)
			return err
		}
	}
	picks, err := p.Run(ctx, check)
	var answer json.RawMessage
	sum := ""
	if err == nil {
		sum = summary(layout, picks)
		if call != nil {
			sum, answer, err = resolve(ctx, call, picks)
		}
	}
	cancel()
	code := 0
	switch {
	case err == nil:
		p.Done(sum)
	case errors.Is(err, termui.ErrDeclined):
		p.Done(layout.Declined)
		code = 5
	case errors.Is(err, termui.ErrInterrupted):
		p.Done(layout.Interrupted)
		code = 6
	default:
		p.Done("")
		fmt.Fprintln(os.Stderr, "pickertest:", err)
		code = 1
	}
	if *outFile != "" {
		res := map[string]any{"picks": picks, "firstPaintMicros": p.FirstPaint().Microseconds()}
		if answer != nil {
			res["answer"] = answer
		}
		if err != nil {
			res["error"] = err.Error()
		}
		j, _ := json.Marshal(res)
		if werr := os.WriteFile(*outFile, append(j, '\n'), 0o600); werr != nil {
			fmt.Fprintln(os.Stderr, werr)
			return 1
		}
	}
	if *thenLine {
		fmt.Fprint(out, "line> ")
		l, lerr := lines.Next(context.Background())
		if lerr != nil {
			l = "error: " + lerr.Error()
		}
		j, _ := json.Marshal(l)
		if werr := os.WriteFile(*outFile+".line", append(j, '\n'), 0o600); werr != nil {
			fmt.Fprintln(os.Stderr, werr)
			return 1
		}
	}
	return code
}

// resolve has the core answer call from the picks and summarize the
// answer, as a front door's provider does: the summary line is "→ " and
// the core's summary, one line per question.
func resolve(ctx context.Context, call *askcore.Call, picks []askcore.Pick) (string, json.RawMessage, error) {
	a, err := call.Resolve(ctx, askcore.Picks(picks...))
	if err != nil {
		return "", nil, err
	}
	sum, err := call.Summary(ctx, a)
	if err != nil {
		return "", nil, err
	}
	return "→ " + strings.ReplaceAll(sum, "\n", "\n→ "), a.JSON(), nil
}

// summary is "→ " and what was chosen, one line per question (and the
// notes, as the core's summary writes them).
func summary(l termui.Layout, picks []askcore.Pick) string {
	var out []string
	for i, p := range picks {
		var parts []string
		for _, idx := range p.Options {
			for _, e := range l.Questions[i].Entries {
				if e.Index == idx {
					parts = append(parts, e.Label)
				}
			}
		}
		if p.Text != "" {
			parts = append(parts, p.Text)
		}
		line := "→ " + strings.Join(parts, ", ")
		if p.Notes != "" {
			line += " (notes: " + p.Notes + ")"
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
