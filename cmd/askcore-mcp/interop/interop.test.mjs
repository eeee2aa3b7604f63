// Interop test: the official TypeScript MCP client (@modelcontextprotocol/sdk,
// which validates every message with zod) spawns the real askcore-mcp binary
// and answers its form elicitations. Run by scripts/test-interop.sh mcp
// (part of `make test`).
//
// Expected bytes come from the askcore core itself (hostjs, the same
// askcore.wasm the binary embeds): the text content of a tool result must be
// exactly what the core wrote.
//
// The multi-select and batch tests are written against the shapes
// docs/SPEC.md specifies, not against what the core happens to write.
//
// ASKCORE_MCP_BIN overrides the binary (default: ../../../bin/askcore-mcp);
// ASKCORE_ENGINE, when set, is passed as --engine.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { strip } from "./forms.mjs";
import { assertResult, bin, callTool, connectServer, TIMEOUT, TOOL } from "./server.mjs";
import { coreOut } from "../../../testdata/interop/core.mjs";
import { answeredAtOnce } from "../../../testdata/interop/notshown.mjs";
import { engineArgs, EXIT_BOUND_MS, exitOf, logOf, withTimeout } from "../../../testdata/interop/child.mjs";
import { dbArgs, nameArgs } from "../../../testdata/interop/questions.mjs";

// cacheHome is this run's XDG_CACHE_HOME for the servers: the wasm engine's
// compilation cache (os.UserCacheDir()/askcore/wazero) goes there, not to
// the user's ~/.cache.
let cacheHome;
const serverEnv = () => ({ ...process.env, ASKCORE_LOG: "info", XDG_CACHE_HOME: cacheHome });
// The main connection: a client with form elicitation. Each test sets
// `respond` before it calls the tool (tests in this file run one at a time).
let main;
let respond = null;
const forms = [];

before(async () => {
  cacheHome = mkdtempSync(path.join(tmpdir(), "askcore-mcp-interop-"));
  main = await connect({ elicitation: { form: {} } }, ["--progress", "5s"]);
  main.client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    forms.push(request.params);
    if (!respond) throw new Error(`unexpected form: ${request.params.message}`);
    return respond(request.params, extra);
  });
});

after(async () => {
  try {
    await main?.close();
  } finally {
    if (cacheHome) rmSync(cacheHome, { recursive: true, force: true, maxRetries: 10 });
  }
});

// connect spawns askcore-mcp through the SDK's own stdio transport
// (server.mjs) and connects a client with the given capabilities to it;
// close() closes the client, which ends the server's stdin.
async function connect(capabilities, extraArgs = []) {
  const on = await connectServer({ clientName: "askcore-interop", capabilities, args: extraArgs, env: serverEnv() });
  assert.equal(on.client.getServerVersion()?.name, "askcore-mcp");
  assert.ok(on.pid, "the server had a pid");
  return on;
}

// call calls the tool on the main connection, or on another, within a
// deadline that quotes the server's stderr.
function call(args, options = {}, on = main) {
  return withTimeout(callTool(on, args, options), TIMEOUT + 5_000, "tools/call", on.log.text);
}

// assertAnswered: the call's result is what the core answers for `reply`.
// The server receives the arguments as the client's JSON text, which is
// JSON.stringify(args) (the SDK serializes messages with JSON.stringify).
// A reply that does not answer the question (the core's INVALID_ANSWER,
// whose message is for the person) reaches the model as the core's
// invalid_reply error quoting that message, as the seam resolves it.
function assertAnswered(result, args, reply) {
  let want = coreOut({ op: "elicitation_result", arguments: JSON.stringify(args), response: reply });
  if (!want.ok && JSON.parse(want.text).code === "INVALID_ANSWER") {
    want = coreOut({ op: "fail", situation: "invalid_reply", detail: JSON.parse(want.text).message });
    assert.ok(want.ok, want.text);
    want = { ok: false, text: want.text };
  }
  assertResult(result, want.text, !want.ok);
  return JSON.parse(want.text);
}

function assertCode(result, code) {
  assert.equal(result.isError, true, JSON.stringify(result));
  assert.equal(result.structuredContent.name, "UserInteractionError");
  assert.equal(result.structuredContent.code, code, JSON.stringify(result.structuredContent));
  assert.ok(result.structuredContent.message);
  assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
}

test("initialize: the server speaks the client's latest protocol", async () => {
  // The TypeScript SDK 1.32.2 asks for 2025-11-25: questions travel as
  // elicitation/create requests.
  assert.equal(LATEST_PROTOCOL_VERSION, "2025-11-25");
  assert.deepEqual(Object.keys(main.client.getServerCapabilities()), ["tools"]);
});

test("tools/list: one tool, the core's description and schema, no desc anywhere", async () => {
  const { tools } = await main.client.listTools();
  assert.equal(tools.length, 1);
  const [tool] = tools;
  const schema = JSON.parse(coreOut({ op: "schema" }).text);
  assert.equal(tool.name, TOOL);
  assert.equal(tool.description, schema.description);
  assert.deepEqual(tool.inputSchema, schema.parameters);
  assert.equal(tool.outputSchema, undefined);
  assert.doesNotMatch(JSON.stringify(tools), /"desc"/);
});

test("choice: the answer object as structuredContent and as the same text", async () => {
  const before = forms.length;
  respond = async (params) => {
    assert.equal(params.mode, "form");
    return { action: "accept", content: { choice: "postgres" } };
  };
  const result = await call(dbArgs);
  const answer = assertAnswered(result, dbArgs, { action: "accept", content: { choice: "postgres" } });
  assert.deepEqual(answer, { answer: "postgres", selected: { index: 0, label: "PostgreSQL", value: "postgres" } });

  // What the client's handler received of the core's MCP form: zod keeps
  // what the MCP schema knows and drops the rest (each option's
  // description). The header is the choice field's title, which MCP has
  // (a requestedSchema title, which it has not, would be dropped).
  assert.equal(forms.length, before + 1);
  // The form for this client (its clientInfo name): option titles carry
  // each description and the recommended mark, for hosts that show titles
  // only.
  const form = JSON.parse(coreOut({ op: "elicitation", for: "mcp", client: "askcore-interop", arguments: JSON.stringify(dbArgs) }).text);
  const seen = forms.at(-1);
  assert.equal(seen.message, form.message);
  assert.deepEqual(seen.requestedSchema, strip(form.requestedSchema));
  assert.equal(seen.requestedSchema.title, undefined, "an MCP form has no requestedSchema title");
  assert.equal(seen.requestedSchema.properties.choice.title, "Database", "the header reaches the client as the field's title");
  assert.deepEqual(seen.requestedSchema.properties.choice.oneOf, [
    { const: "sqlite", title: "SQLite (recommended)" },
    { const: "postgres", title: "PostgreSQL — a server" },
  ]);
  assert.equal(seen.requestedSchema.properties.choice.default, "sqlite");
});

test("optionless question: free text", async () => {
  const args = nameArgs;
  respond = async (params) => {
    assert.deepEqual(Object.keys(params.requestedSchema.properties), ["answer", "notes"]); // notes: optional
    assert.deepEqual(params.requestedSchema.required, ["answer"]);
    return { action: "accept", content: { answer: "askcore" } };
  };
  const answer = assertAnswered(await call(args), args, { action: "accept", content: { answer: "askcore" } });
  assert.deepEqual(answer, { answer: "askcore" });
});

test("custom answer wins over the pre-filled choice", async () => {
  const reply = { action: "accept", content: { choice: "sqlite", custom_answer: "DuckDB <in-process> & fast" } };
  respond = async () => reply;
  const result = await call(dbArgs);
  const answer = assertAnswered(result, dbArgs, reply);
  assert.deepEqual(answer, { answer: "DuckDB <in-process> & fast" });
  // The text is the core's bytes, which escape <, > and & as JSON allows.
  assert.equal(result.content[0].text, '{"answer":"DuckDB \\u003cin-process\\u003e \\u0026 fast"}');
});

test("a choice that was not offered is the core's INVALID_ANSWER", async () => {
  const reply = { action: "accept", content: { choice: "oracle" } };
  respond = async () => reply;
  const result = await call(dbArgs);
  assertAnswered(result, dbArgs, reply);
  assertCode(result, "INVALID_ANSWER");
  // The model is not given the person's re-prompt as it is: the core's
  // message for the model quotes it.
  const told = JSON.parse(coreOut({ op: "elicitation_result", arguments: JSON.stringify(dbArgs), response: reply }).text).message;
  assert.notEqual(result.structuredContent.message, told);
  assert.ok(result.structuredContent.message.includes(told), result.structuredContent.message);
});

// afterReading waits as long as a person takes to read a form: a decline
// or cancel sooner than the core's NotShownMillis (250 ms) is not the
// person's.
const afterReading = (reply) => async () => {
  await new Promise((r) => setTimeout(r, 300));
  return reply;
};

test("decline: ASK_DECLINED", async () => {
  respond = afterReading({ action: "decline" });
  const result = await call(dbArgs);
  assertAnswered(result, dbArgs, { action: "decline" });
  assertCode(result, "ASK_DECLINED");
});

test("cancel: ASK_CANCELLED", async () => {
  respond = afterReading({ action: "cancel" });
  const result = await call(dbArgs);
  assertAnswered(result, dbArgs, { action: "cancel" });
  assertCode(result, "ASK_CANCELLED");
});

test("a decline at once is not the person's: ASK_FAILED, nobody saw the question", async () => {
  for (const action of ["decline", "cancel"]) {
    respond = async () => ({ action });
    const result = await answeredAtOnce(() => call(dbArgs), (r) => r.structuredContent?.code === "ASK_FAILED");
    assertCode(result, "ASK_FAILED");
    assert.match(result.structuredContent.message, /^Nobody saw the question: /);
    assert.match(result.structuredContent.message, /askcore-interop 0\.0\.0/);
  }
});

test("invalid arguments: the core's INVALID_REQUEST, nobody is asked", async () => {
  const before = forms.length;
  respond = null;
  for (const args of [
    { options: [{ label: "A" }] },
    { question: "Pick one?", options: [{ label: "A" }, { label: "a" }] },
    { question: 42 },
    {},
  ]) {
    const result = await call(args);
    const want = coreOut({ op: "normalize", arguments: JSON.stringify(args) });
    assert.equal(want.ok, false);
    assertResult(result, want.text, true);
    assertCode(result, "INVALID_REQUEST");
  }
  assert.equal(forms.length, before);
});

test("--web=never: a client without form elicitation gets ASK_FAILED at once", async () => {
  for (const capabilities of [{}, { elicitation: { url: {} } }]) {
    const other = await connect(capabilities, ["--web=never"]);
    try {
      const result = await call(dbArgs, {}, other);
      assertCode(result, "ASK_FAILED");
      assert.match(result.structuredContent.message, /form/);
    } finally {
      await other.close();
    }
  }
});

test("5 concurrent calls each get their own answer", async () => {
  const n = 5;
  const pending = new Map();
  let all;
  const arrived = new Promise((resolve) => (all = resolve));
  respond = (params) =>
    new Promise((resolve) => {
      pending.set(params.message, resolve);
      if (pending.size === n) all();
    });
  const questions = Array.from({ length: n }, (_, i) => `Concurrent question ${i}?`);
  const calls = questions.map((q) => call({ question: q }));
  await withTimeout(arrived, TIMEOUT, "5 forms", main.log.text);
  // Answer in the reverse order of arrival.
  for (const [message, resolve] of [...pending].reverse()) {
    resolve({ action: "accept", content: { answer: `answer to ${message}` } });
  }
  const results = await Promise.all(calls);
  results.forEach((result, i) => {
    const answer = assertAnswered(result, { question: questions[i] },
      { action: "accept", content: { answer: `answer to ${questions[i]}` } });
    assert.equal(answer.answer, `answer to ${questions[i]}`);
  });
});

test("progress during a 12-second answer keeps an 8-second request timeout alive", async () => {
  // The person thinks for 12 s; the client gives up after 8 s without
  // progress. The server's notifications (every 5 s) reset the timeout.
  const THINK = 12_000;
  const progress = [];
  respond = async () => {
    await delay(THINK);
    return { action: "accept", content: { answer: "after some thought" } };
  };
  const args = { question: "Take your time: what is the plan?" };
  const started = Date.now();
  const result = await callTool(main, args, {
    timeout: 8_000,
    resetTimeoutOnProgress: true,
    onprogress: (p) => progress.push(p),
  });
  assert.ok(Date.now() - started >= THINK);
  assertAnswered(result, args, { action: "accept", content: { answer: "after some thought" } });
  assert.ok(progress.length >= 2, `progress notifications: ${JSON.stringify(progress)}`);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress);
});

test("cancellation withdraws the question (ASK_ABORTED) and the server goes on", async () => {
  const abort = new AbortController();
  const form = openForm();
  respond = form.respond;
  const pending = callTool(main, dbArgs, { signal: abort.signal });
  await withTimeout(form.asked, TIMEOUT, "the form", main.log.text);
  abort.abort("the user pressed Esc in the agent");
  await assert.rejects(pending);
  // The server cancelled its elicitation/create (notifications/cancelled),
  // which aborted the handler's signal, and ended the call with ASK_ABORTED.
  await main.log.match(/outcome=ASK_ABORTED/, "ASK_ABORTED in the server log");
  await withTimeout(form.gone, TIMEOUT, "the form's abort signal", main.log.text);

  respond = async () => ({ action: "accept", content: { answer: "still here" } });
  const args = { question: "Are you still there?" };
  assertAnswered(await call(args), args, { action: "accept", content: { answer: "still here" } });
});

test("disconnect mid-question: the server aborts the question and exits 0", async () => {
  // A client process that dies: stdin closes, stdout breaks, while a form
  // is open and progress notifications are going out.
  const { child, log, exited, client } = await spawnServer(() => new Promise(() => {}), ["--progress", "100ms"]);
  let progressSeen;
  const progressed = new Promise((resolve) => (progressSeen = resolve));
  callTool({ client }, dbArgs, { onprogress: () => progressSeen() }).catch(() => {});
  await withTimeout(progressed, TIMEOUT, "a progress notification", log.text);

  child.stdout.destroy();
  child.stdin.end();
  const { code, signal } = await withTimeout(exited, TIMEOUT, "askcore-mcp to exit", log.text);
  assert.equal(signal, null, log.text());
  assert.equal(code, 0, log.text());
  assert.match(log.text(), /outcome=ASK_ABORTED/);
  assert.doesNotMatch(log.text(), /panic|goroutine \d+ \[/);
});

// ChildTransport is an MCP transport over a child process spawned by the
// test, so that the test can cut the pipes itself.
class ChildTransport {
  constructor(child) {
    this.child = child;
    this.buf = new ReadBuffer();
  }
  async start() {
    this.child.stdout.on("data", (chunk) => {
      this.buf.append(chunk);
      // As the SDK's StdioClientTransport: a message it cannot read goes
      // to onerror, the connection goes on.
      for (;;) {
        let m;
        try {
          m = this.buf.readMessage();
        } catch (err) {
          this.onerror?.(err);
          continue;
        }
        if (m === null) break;
        this.onmessage?.(m);
      }
    });
    this.child.on("exit", () => this.onclose?.());
  }
  async send(message) {
    if (!this.child.stdin.writable) throw new Error("closed");
    this.child.stdin.write(serializeMessage(message));
  }
  async close() {
    this.child.stdin.end();
  }
}

// spawnServer starts askcore-mcp with extraArgs as a child the test holds
// (stdin, stdout, the process), connected to a client with form
// elicitation whose forms are answered by respond.
async function spawnServer(respond, extraArgs = []) {
  const child = spawn(bin, [...engineArgs, ...extraArgs], { stdio: ["pipe", "pipe", "pipe"], env: serverEnv() });
  const log = logOf(child.stderr, TIMEOUT);
  const exited = exitOf(child);
  const client = new Client({ name: "askcore-interop", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });
  const clientErrors = [];
  client.onerror = (err) => clientErrors.push(String(err));
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => respond(request.params, extra));
  await withTimeout(client.connect(new ChildTransport(child)), TIMEOUT, "connect", log.text);
  return { child, log, exited, client, clientErrors };
}

// A form that stays open until the server withdraws it.
function openForm() {
  let entered, withdrawn;
  const asked = new Promise((resolve) => (entered = resolve));
  const gone = new Promise((resolve) => (withdrawn = resolve));
  const respond = (params, extra) =>
    new Promise((_, reject) => {
      entered();
      extra.signal.addEventListener("abort", () => {
        withdrawn();
        reject(new Error("withdrawn"));
      });
    });
  return { asked, gone, respond };
}

test("hostile lines mid-question: the server answers them and the call still gets its answer", async () => {
  let answer;
  const answered = new Promise((resolve) => (answer = resolve));
  let entered;
  const asked = new Promise((resolve) => (entered = resolve));
  const s = await spawnServer(() => {
    entered();
    return answered;
  });
  const args = { question: "Still there?" };
  const pending = call(args, {}, s);
  await withTimeout(asked, TIMEOUT, "the form", s.log.text);
  // Written straight to the server's stdin, one byte at a time: what
  // go-sdk's own transport ended the session on. (Ids the client never
  // uses, so that no error resolves a request of its own.)
  const lines = [
    "not json",
    "42",
    '"a string"',
    '{"jsonrpc":"2.0"}',
    '{"jsonrpc":"1.0","id":"x-1","method":"ping"}',
    '{"jsonrpc":"2.0","id":{"an":"object"},"method":"ping"}',
    '[{"jsonrpc":"2.0","id":"x-2","method":"ping"}]',
    '{"jsonrpc":"2.0","id":"x-3","error":{"code":"x","message":"boom"}}',
  ];
  for (const line of lines) for (const b of Buffer.from(line + "\n")) s.child.stdin.write(Buffer.from([b]));
  await s.log.match(/dropped a response to no pending request/, "the stray response dropped");
  answer({ action: "accept", content: { answer: "yes" } });
  assertAnswered(await pending, args, { action: "accept", content: { answer: "yes" } });
  // The errors reached the client as JSON-RPC error responses it reports
  // to onerror (their ids are not its requests'), and nothing else broke.
  assert.ok(s.clientErrors.length >= 1, "the client saw the error responses");
  s.child.stdin.end();
  const { code } = await withTimeout(s.exited, TIMEOUT, "askcore-mcp to exit", s.log.text);
  assert.equal(code, 0, s.log.text());
  assert.doesNotMatch(s.log.text(), /panic|goroutine \d+ \[/);
});

test("SIGTERM mid-question: the call is answered ASK_ABORTED (stopped), the form withdrawn, exit 143 within 2 s", async (t) => {
  const form = openForm();
  const s = await spawnServer(form.respond);
  const pending = call(dbArgs, {}, s);
  await withTimeout(form.asked, TIMEOUT, "the form", s.log.text);
  const signalled = Date.now();
  s.child.kill("SIGTERM");
  const want = coreOut({ op: "fail", situation: "stopped", detail: "SIGTERM" });
  assert.ok(want.ok, want.text);
  assertResult(await pending, want.text, true);
  await withTimeout(form.gone, TIMEOUT, "the form's abort signal (notifications/cancelled)", s.log.text);
  const { code, signal, at } = await withTimeout(s.exited, TIMEOUT, "askcore-mcp to exit", s.log.text);
  assert.equal(signal, null, s.log.text());
  assert.equal(code, 143, s.log.text());
  t.diagnostic(`askcore-mcp exited ${at - signalled} ms after SIGTERM`);
  assert.ok(at - signalled < EXIT_BOUND_MS, `exited ${at - signalled} ms after SIGTERM`);
});

test("multi-select: one array field, the chosen values in request order", async () => {
  const args = {
    header: "Features",
    question: "Which features should I enable?",
    multiSelect: true,
    allowCustom: true,
    options: [
      { label: "Search", value: "search", recommended: true },
      { label: "Export", value: "export" },
      { label: "Sync", value: "sync", recommended: true },
    ],
  };
  let seen;
  respond = async (params) => {
    seen = params.requestedSchema;
    return { action: "accept", content: { choices: ["sync", "search"], custom_answer: "audit log" } };
  };
  const result = await call(args);
  assert.ok(seen, "the form reached the client");
  const field = seen.properties.choices;
  assert.ok(field, `a "choices" field: ${JSON.stringify(seen)}`);
  assert.equal(field.type, "array");
  assert.deepEqual(field.items.anyOf.map((o) => o.const).sort(), ["export", "search", "sync"]);
  assert.deepEqual([...field.default].sort(), ["search", "sync"]);
  assert.equal(result.isError ?? false, false, JSON.stringify(result.structuredContent));
  assert.deepEqual(result.structuredContent, {
    answers: ["search", "sync", "audit log"],
    selected: [
      { index: 0, label: "Search", value: "search" },
      { index: 2, label: "Sync", value: "sync" },
    ],
  });
  assertAnswered(result, args, { action: "accept", content: { choices: ["sync", "search"], custom_answer: "audit log" } });
});

test("batch: one form for every question, answered whole", async () => {
  const args = {
    questions: [
      { header: "Database", question: "Which database?", options: [{ label: "SQLite", value: "sqlite", recommended: true }, { label: "PostgreSQL", value: "postgres" }] },
      { question: "What should the project be called?" },
    ],
  };
  let seen;
  respond = async (params) => {
    seen = params.requestedSchema;
    return { action: "accept", content: { choice_1: "postgres", answer_2: "askcore" } };
  };
  const result = await call(args);
  assert.ok(seen, "the form reached the client");
  assert.ok(seen.properties.choice_1, `choice_1: ${JSON.stringify(seen)}`);
  assert.ok(seen.properties.answer_2, `answer_2: ${JSON.stringify(seen)}`);
  assert.equal(result.isError ?? false, false, JSON.stringify(result.structuredContent));
  assert.deepEqual(result.structuredContent, {
    answers: [
      { question: "Which database?", answer: "postgres", selected: { index: 1, label: "PostgreSQL", value: "postgres" } },
      { question: "What should the project be called?", answer: "askcore" },
    ],
  });
  assertAnswered(result, args, { action: "accept", content: { choice_1: "postgres", answer_2: "askcore" } });
});
