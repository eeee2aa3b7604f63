// Command askcore-stdio is the terminal front door of askcore: an agent
// whose model can ask you questions through the ask_user_question tool, and
// a subcommand any program can shell out to.
//
// # The terminal agent
//
//	askcore-stdio [--script FILE] [--engine wasm|native] [--plain]
//
// Each line read from stdin is a user prompt; while a question is pending,
// the next line is its answer. The model is chosen as docs/SPEC.md
// ("Front doors") says (package frontdoor): --script FILE (JSON Lines, one
// model reply a line), else DEEPSEEK_API_KEY, else OPENAI_API_KEY
// (OPENAI_BASE_URL, OPENAI_MODEL), else the built-in demo. With the demo on
// a terminal the program starts the first turn itself (as if you had said
// hello; fed by a pipe it waits for the first line, which is a prompt), so
//
//	go run ./cmd/stdio
//
// greets, asks a batch of two questions (the second multi-select) and goes
// on with your answers, offline.
//
// # The keyboard picker
//
// The core's terminal op decides from the TTY facts, TERM, NO_COLOR,
// ASKCORE_PLAIN and --plain whether questions are answered with the
// keyboard picker of docs/SPEC.md (stdin and stderr are terminals,
// TERM is not dumb, no --plain or ASKCORE_PLAIN) or in the line mode below,
// and whether colour is used. The picker (termui, termui/PICKER.md) draws
// the core's picker layout below the model's text (on stdout; on stderr when
// stdout is not a terminal): Up/Down and j/k move, 1-9 jump, Space toggles
// a multi-select option (recommended ones start on), typing on the
// own-answer entry or in an optionless question writes the text, Enter
// confirms (the core checks the pick: its message is shown and the person
// stays; in a batch Enter goes on to the next question, after the last one
// the batch is submitted), Tab/Shift-Tab switch questions of a batch
// without confirming, Esc declines (the model is told ASK_DECLINED),
// Ctrl-C dismisses the question only (ASK_ABORTED; the conversation goes
// on). There is no alternate screen: after an answer the picker is erased
// and one line, "→ " and the core's summary, stays in the scrollback (the
// layout's "✗ declined" / "✗ dismissed (Ctrl-C)" after Esc / Ctrl-C).
// Output that arrives while a question is pending, stdout's or stderr's on
// the same terminal, goes above the picker (termui.SyncWriter). The
// terminal is raw only while a picker runs, and read through
// termui.TerminalInput, so that the line prompt after it is cooked again
// at once (Ctrl-D included).
//
// # Line mode
//
// Pipes, TERM=dumb, --plain and ASKCORE_PLAIN=1 get the line mode, which is
// also the screen-reader mode. A question shows the core's present text as
// it is: the header and question, the options numbered in display order
// (recommended first), each description on the next line, and a hint. Every
// typed line is resolved by the core: a number, a label or value (any
// case), your own text when the question allows it (an optionless question
// always does), or an empty line for the recommended option(s); for a
// multi-select question, several of them separated by commas. A line that
// does not fit prints the core's message and asks again; a line that does
// is echoed as "→ " and the core's summary of it. A batch asks its
// questions one after another (the core's text starts with "Question i of
// n") and is answered, or fails, whole. Simultaneous calls wait in a queue,
// so one prompt at a time owns stdin.
//
// Terminal and pipe behave the same: a single goroutine owns stdin and
// hands each line to whoever waits for one (the prompt loop or the question
// on screen). On a terminal the program also shows a banner and a "> "
// prompt, sets the question apart with a "? ───" rule and a "? " prompt in
// colour (never when NO_COLOR is set or TERM=dumb; never on a pipe), and
// handles Ctrl-C: during a question it dismisses that question only (the
// model receives ASK_ABORTED and the conversation goes on); anywhere else it
// ends the program between two writes (exit 130). End of input (Ctrl-D)
// aborts a pending question with ASK_ABORTED, lets the turn finish, and
// exits 0 (1 if a model error was reported on stderr during the run).
//
// In line mode the terminal stays cooked: the terminal's own line editing
// (backspace, Ctrl-U, Ctrl-W, pasting) works, Ctrl-C arrives as SIGINT,
// which the program catches, and Ctrl-D is end of input.
//
// Nothing the model writes can drive the terminal: the core strips control
// sequences (ESC/CSI/OSC, C1 controls, BEL, backspace, carriage returns,
// bidi overrides and isolates) from everything it returns, and the model's
// own reply text, tool names and errors pass through the core's sanitize op
// on the engine chosen with --engine before they are printed (model errors
// on stderr).
//
// # Questions from a shell
//
//	askcore-stdio ask [--request JSON] [--engine wasm|native] [--timeout D] [--plain]
//
// Asks one question (or a batch) and prints the core's answer object on
// stdout, e.g.
// {"answer":"prod","selected":{"index":1,"label":"Production","value":"prod"}},
// exit status 0. The request is ask_user_question's arguments as text: it
// comes from --request, or else from stdin (all of it), and the core parses
// it. With --request, the answer is read from stdin; the prompt goes to
// the terminal (/dev/tty) when stdin is one, else to stderr. With the
// request on stdin, stdin is used up, so the answer is read from the
// controlling terminal (/dev/tty), where the prompt goes too; without one
// the ask fails with the core's no_terminal error (ASK_FAILED). The core's
// terminal op chooses the keyboard picker (drawn where the prompt goes;
// Esc exits 5 with ASK_DECLINED, Ctrl-C exits 3 with ASK_ABORTED: the
// terminal is raw, so the shell around does not get SIGINT) or the line
// mode, as for the chat. A signal or --timeout erases the picker and
// restores the terminal before the error is printed.
//
// # Questions in a browser
//
//	askcore-stdio ask --web [--no-browser] [--web-addr HOST:PORT] [--request JSON] ...
//
// Asks on a local web page instead of the terminal (package answerpage;
// docs/SPEC.md, "Front doors"): the request is read as above, the line
// "askcore: answer at URL" goes to stderr, and the page is opened in the
// default browser when a desktop session is detected (DISPLAY or
// WAYLAND_DISPLAY on Linux), unless --no-browser or ASKCORE_BROWSER=none.
// The page (127.0.0.1, a free port, a 256-bit token in the URL) runs the
// same askcore.wasm through the JS host's DOM provider, with the picker's
// keys and the mouse; what it submits is judged by this binary's core. The
// answer, the errors and the exit statuses are those below; --timeout and
// signals withdraw the question from the page, which says so. Over SSH, fix
// the port with --web-addr 127.0.0.1:PORT and forward the same port.
//
// On failure the core's error object {"name","code","message"} is printed
// on stdout, byte for byte as the core wrote it, and the exit status says
// which code it is:
//
//	0  answered
//	1  ASK_FAILED (no terminal to read the answer from, the engine failed) and any other error
//	2  INVALID_REQUEST (the request is malformed or ambiguous; bad flags)
//	3  ASK_ABORTED (end of input before an answer, Ctrl-C, SIGTERM)
//	4  ASK_TIMEOUT (--timeout elapsed; nothing was chosen)
//	5  ASK_DECLINED (the person declined: Esc in the keyboard picker)
//
// # The chat on the answer page
//
//	askcore-stdio --web [--no-browser] [--web-addr HOST:PORT]
//
// asks every question of the chat on the answer page (stdin lines stay the
// prompts; Ctrl-C dismisses the question on the page). Without --web a
// question goes to the page by itself only when stdin is not a terminal and
// has ended, /dev/tty cannot be opened, and a browser can open here (a
// desktop session, or ASKCORE_BROWSER naming a command): a GUI git hook
// that pipes in a prompt is asked on the page; a CI job gets ASK_ABORTED
// instead of waiting for nobody.
//
// # Exit status of the terminal agent
//
//	0    end of input
//	1    a start-up failure (bad --script, unknown --engine), or a model error during the run
//	2    bad flags or arguments
//	130  Ctrl-C outside a question
//	143  SIGTERM
package main
