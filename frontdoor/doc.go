/*
Package frontdoor holds what both binaries share: the model settings of
contract.md section 6 (--script, DEEPSEEK_API_KEY, OPENAI_API_KEY, the
built-in demo), the --engine choice, and Build, which wires the engine,
the interaction service, the ask tool and the model together so that a
front door only registers its provider and runs agents.

# Model settings

Both askcore-stdio and askcore-acp choose their model the same way, first
match wins:

 1. --script FILE: a scripted model. FILE is JSON Lines, one model reply per
    line: {"content": TEXT} and/or
    {"tool_calls": [{"id": ID, "name": "ask_user_question", "arguments": {...}}]}.
    arguments reach the tool as text, as a real model's do: a JSON string
    is the arguments text itself, as OpenAI sends it (passed on verbatim,
    even when it is not valid JSON); an object is passed on as its JSON
    text. A reply with tool calls is followed by the next line once the
    tools ran; a reply without tool calls ends the turn. In content,
    {{answer}} is replaced by the answer of the latest ask_user_question
    result (a multi-select answer's values joined by ", ", a batch's
    answers joined by "; "), or by its error code (e.g. ASK_DECLINED). Each conversation (each ACP session, the
    one terminal conversation) replays FILE from its own first line; past
    the last line the model ends the turn with "(script finished)". Blank
    lines are skipped; a malformed line is reported with its line number.
    An explicit --script wins over any API key in the environment.
 2. DEEPSEEK_API_KEY set: DeepSeek's OpenAI-compatible API at
    https://api.deepseek.com with the model deepseek-chat.
 3. OPENAI_API_KEY set: any OpenAI-compatible chat completions server with
    tool calling. OPENAI_BASE_URL (default https://api.openai.com/v1)
    points at another server (a local one, a proxy, another vendor);
    OPENAI_MODEL (default gpt-4.1-mini) names the model.
 4. None of these: a built-in demo script, so a first run shows the feature
    offline: the agent greets, asks which language to use (four options,
    one recommended, free text allowed), reports the answer it received,
    asks an open question, and wraps up.

HTTP models retry a failed request twice (connection errors, 408, 409, 429,
5xx; Retry-After is honoured), give each attempt 120 s, and report API
errors with the HTTP status and the server's error code and message. Other
OPENAI_* variables (OPENAI_ORG_ID, ...) are not read.

--engine wasm|native (default wasm) says where the askcore rules run: the
WebAssembly core under wazero, or the same Go code compiled natively. Both
give the same bytes.

# For front door authors

	var s frontdoor.Settings
	s.AddFlags(flag.CommandLine)
	flag.Parse()
	rt, err := frontdoor.Build(ctx, s, os.Getenv) // engine, seam, ask tool, model
	defer rt.Close(ctx)
	dispose, err := rt.Interaction.Register(myProvider) // terminal, ACP forms...
	defer dispose()
	a := rt.NewAgent(agentID, sessionID, agent.Hooks{...}) // one per conversation
	err = a.Run(ctx, prompt)

rt.Client gives the core's present/resolve/elicitation ops to the provider;
agent.ErrorJSON(err) is the {name, code, message} object, as the core wrote
it, to show or send.

Agents get the system prompt rt.System (SystemPrompt): a short preamble
(the role; call ask_user_question instead of guessing; never invent an
answer) followed by the tool's description as the engine's core wrote it,
so that what a model is told about the tool is the core's own wording.
*/
package frontdoor
