// Command askcore-stdio is the terminal front door of askcore: a chat with
// an agent whose model can ask you questions through the ask_user_question
// tool, and a subcommand any program can shell out to for one question.
//
//	askcore-stdio [--script FILE] [--engine wasm|native] [--plain] [--web [--no-browser] [--web-addr HOST:PORT]]
//	askcore-stdio ask [--request JSON] [--engine wasm|native] [--timeout D] [--plain] [--web ...]
//
// The chat takes each line of stdin as a prompt; the model is chosen as
// for every front door (package frontdoor), and with none configured a
// built-in demo runs offline (go run ./cmd/askcore-stdio). The ask subcommand
// takes ask_user_question's arguments as text (--request, or stdin) and
// prints the core's answer object, or its error object, on stdout; the
// exit status names the error's code.
//
// A question is answered with the keyboard picker on a terminal, in the
// line mode (also the screen-reader mode) on a pipe, with TERM=dumb or
// --plain, or on the local answer page (package answerpage) with --web:
// the core's terminal op decides between the first two, and every text
// shown is the core's, made safe there.
//
// How it behaves is described once, in docs/terminal.md (the picker and
// its keys, the line mode, scripting the agent, ask and its exit statuses)
// and docs/answer-page.md; docs/SPEC.md ("Front doors") has the rules
// every front door shares.
package main
