/*
Package frontdoor is for building a front door: a program, like
askcore-stdio, askcore-acp or askcore-mcp, that puts an agent in front of
a person and lets the agent ask them questions. It holds what those
binaries share, from public parts only, so that your own front door can
be built the same way: the --script and --engine flags (Settings), the
choice of a model from the environment (Settings.Model), the engine that
runs askcore's rules (OpenEngine), and Build, which wires the engine, the
seam (askcore.Service), the ask_user_question tool and the model
together. A front door then only registers its provider and runs agents.

# Building a front door

	var s frontdoor.Settings
	s.AddFlags(flag.CommandLine) // --script FILE, --engine wasm|native
	flag.Parse()
	rt, err := frontdoor.Build(ctx, s, os.Getenv) // engine, seam, ask tool, model
	if err != nil { ... }
	defer rt.Close(ctx)

	prov, err := termui.Open(ctx, rt.Core) // the terminal; or your own askcore.Provider
	if err != nil { ... }
	defer prov.Close()
	dispose, err := rt.Service.Register(prov)
	if err != nil { ... }
	defer dispose()

	a := rt.NewAgent(agentID, sessionID, agent.Hooks{...}) // one per conversation
	err = a.Run(ctx, prompt)

The provider receives each question as an *askcore.Call, with the core's
ops for showing it (Call.Present, Call.Picker, Call.Form) and judging what
the person gives (Call.CheckLine, Call.CheckPick), and hands back what the
person gave (askcore.Lines, Picks, FormReply, Decline): the seam has the
core resolve it into the answer the model receives. askcore.ErrorJSON(err)
is an error as the model receives it, {"name","code","message"} as the
core wrote it, to show or send. Code running in a session, such as a tool
that delegates a task, gets an agent sharing its caller's session with
Runtime.NewSubAgent and an askcore.Router.

Agents get the system prompt rt.System (SystemPrompt): a short preamble
(the role; call ask_user_question instead of guessing; never invent an
answer) followed by the tool's description as the engine's core wrote it,
so that what a model is told about the tool is the core's own wording.
Settings.Timeout, when positive, ends each question of the ask tool with
ASK_TIMEOUT; by default nothing is ever chosen on a person's behalf.

# Model settings

Settings.Model, and so Build, chooses the model the same way for every
front door, first match wins:

 1. --script FILE: a scripted model (package model/script). FILE is JSON
    Lines, one model reply per line: {"content": TEXT} and/or
    {"tool_calls": [{"id": ID, "name": "ask_user_question", "arguments": {...}}]}.
    arguments reach the tool as text, as a real model's do: a JSON string
    is the arguments text itself, as OpenAI sends it (passed on verbatim,
    even when it is not valid JSON); an object is passed on as its JSON
    text. A reply with tool calls is followed by the next line once the
    tools ran; a reply without tool calls ends the turn. In content,
    {{answer}} is replaced by the answer of the latest ask_user_question
    result (a multi-select answer's values joined by ", ", a batch's
    answers joined by "; "), or by its error code (e.g. ASK_DECLINED).
    Each conversation (each ACP session, the one terminal conversation)
    replays FILE from its own first line; past the last line the model
    ends the turn with "(script finished)". Blank lines are skipped; a
    malformed line is reported with its line number. An explicit --script
    wins over any API key in the environment.
 2. DEEPSEEK_API_KEY set: DeepSeek's OpenAI-compatible API at
    https://api.deepseek.com with the model deepseek-chat.
 3. OPENAI_API_KEY set: any OpenAI-compatible chat completions server with
    tool calling (package model/openai). OPENAI_BASE_URL (default
    https://api.openai.com/v1) points at another server (a local one, a
    proxy, another vendor); OPENAI_MODEL (default gpt-4.1-mini) names the
    model.
 4. None of these: a built-in demo script, so a first run shows the feature
    offline: the agent greets, asks two questions at once (the language of
    a new service, and which features it should have, several allowed),
    reports the answers it received, asks an open question, and wraps up.

HTTP models retry a failed request twice (connection errors, 408, 409, 429,
5xx; Retry-After is honoured), give each attempt 120 s, and report API
errors with the HTTP status and the server's error code and message. Other
OPENAI_* variables (OPENAI_ORG_ID, ...) are not read.

# Engines

--engine wasm|native (default wasm; EngineWasm, EngineNative) says where
askcore's rules run: the WebAssembly core under wazero (package hostgo), or
the same Go code compiled natively (askcore.Native). Both write the same
bytes for the same input. A front door that runs the rules without a model
(askcore-stdio ask, askcore-mcp) registers --engine alone (AddEngineFlag)
and starts the engine with Settings.Open, a core on it; OpenEngine starts
one by name, with options for the wasm engine.

Version is the module's version as the build recorded it, for --version
and a protocol's initialize.

askcore's rules themselves, with every op, limit and message, are
specified in docs/SPEC.md in the repository.
*/
package frontdoor
