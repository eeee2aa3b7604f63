/*
Package frontdoor is for building a front door: a program, like
askcore-stdio, askcore-acp or askcore-mcp, that puts an agent in front of a
person and lets it ask them questions. It holds what those binaries share,
from public parts only: the --script and --engine flags (Settings), the
choice of a model from the environment (Settings.Model), the engine that
runs askcore's rules (OpenEngine), and Build, which wires the engine, the
seam (askcore.Service), the ask_user_question tool and the model together.
A front door then only registers its provider and runs agents:

	s := frontdoor.Settings{FromEnv: openaimodel.FromEnv} // DEEPSEEK_API_KEY, OPENAI_API_KEY
	s.AddFlags(flag.CommandLine)                        // --script FILE, --engine wasm|native
	flag.Parse()
	rt, err := frontdoor.Build(ctx, s, os.Getenv) // engine, seam, ask tool, model
	if err != nil { ... }
	defer rt.Close(ctx)
	dispose, err := rt.Service.Register(prov) // termui.Open, or your own askcore.Provider
	if err != nil { ... }
	defer dispose()
	a := rt.NewAgent(agentID, sessionID, agent.Hooks{...}) // one per conversation
	err = a.Run(ctx, prompt)

Agents get the system prompt rt.System: a short preamble, then the tool's
description as the core wrote it. Runtime.NewSubAgent gives code running in
a session (a tool that delegates a task) an agent sharing its caller's
session. Settings.Timeout, when positive, ends each question with
ASK_TIMEOUT; by default nothing is ever chosen on a person's behalf.

The model is chosen the same way for every front door (--script FILE,
DEEPSEEK_API_KEY, OPENAI_API_KEY, else a built-in demo: docs/models.md);
the keys are read by openaimodel.FromEnv, which the front door sets in
Settings.FromEnv (package frontdoor itself links no HTTP model client); a
front door without a model (askcore-stdio ask, askcore-mcp)
registers --engine alone (AddEngineFlag) and calls Settings.Open.

Web is the answer page's flags, Command the command line of a protocol
front door, NotifyStop and ExitStatus its one signal rule; Version is the
module's version as the build recorded it.
*/
package frontdoor
