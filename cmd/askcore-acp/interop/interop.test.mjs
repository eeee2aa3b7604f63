// Interop test: the official TypeScript ACP client (@agentclientprotocol/sdk,
// which validates every message with zod) drives the real askcore-acp binary
// over stdio. Run by scripts/test-interop.sh acp (`make test-interop`).
//
// Two agent processes run, each with its own --script file: one asks single
// questions (a choice, then an optionless one), the other one batch holding
// a single choice and a multi-select question.
//
// Expected bytes come from the askcore core itself where the agent must
// pass them on as the core wrote them (hostjs, the same askcore.wasm the
// binary embeds).
//
// ASKCORE_ACP_BIN overrides the binary (default: ../../../bin/askcore-acp);
// ASKCORE_ENGINE, when set, is passed as --engine.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { coreOut } from "../../../testdata/interop/core.mjs";
import { answeredAtOnce } from "../../../testdata/interop/notshown.mjs";
import { EXIT_BOUND_MS, withTimeout } from "../../../testdata/interop/child.mjs";
import { dbArgs, nameArgs } from "../../../testdata/interop/questions.mjs";
import { assertRawOutputBytes, newSession as agentSession, spawnAgent, stopAgent, texts, turn } from "./agent.mjs";

// The first scripted model: each session replays it from its first line.
// Prompt 1 asks a choice question (options + free text); prompt 2 an
// optionless one.
const singleScript = [
  { content: "Let me ask.", tool_calls: [{ id: "call_db", name: "ask_user_question", arguments: dbArgs }] },
  { content: "You chose {{answer}}." },
  { tool_calls: [{ id: "call_name", name: "ask_user_question", arguments: nameArgs }] },
  { content: "Project: {{answer}}." },
];

// The second scripted model asks one batch: a single choice and a
// multi-select question with free text.
const batchArgs = {
  questions: [
    {
      header: "Database",
      question: "Which database should I use?",
      options: [
        { label: "PostgreSQL", value: "postgres" },
        { label: "SQLite", value: "sqlite", recommended: true },
      ],
    },
    {
      header: "Features",
      question: "Which features do you want?",
      multiSelect: true,
      options: [
        { label: "Auth", value: "auth", recommended: true },
        { label: "Billing & invoices", value: "billing" },
        { label: "Search", value: "search" },
      ],
      allowCustom: true,
    },
  ],
};
const batchScript = [
  { content: "Two questions.", tool_calls: [{ id: "call_batch", name: "ask_user_question", arguments: batchArgs }] },
  { content: "Done: {{answer}}." },
];

// How long the test waits for an update or for the agent to exit. Only a
// failing test waits that long: a loaded machine makes it slower, never red.
const TIMEOUT = 120_000;
let tmp;
let single, batch;

// startAgent starts askcore-acp on script (agent.mjs) for a client with
// form elicitation. It records every elicitation/create the agent sends
// (elicitations); responders maps a sessionId to async (params, signal) =>
// elicitation response.
async function startAgent(name, script) {
  const elicitations = [];
  const responders = new Map();
  const agent = await spawnAgent({
    dir: tmp,
    name,
    script,
    clientName: "askcore-interop",
    timeout: TIMEOUT,
    onElicitation: async ({ params, signal }) => {
      elicitations.push(params);
      const respond = responders.get(params.sessionId);
      if (!respond) throw new Error(`no responder for session ${params.sessionId}`);
      return respond(params, signal);
    },
  });
  assert.equal(agent.init.protocolVersion, acp.PROTOCOL_VERSION);
  return Object.assign(agent, { elicitations, responders });
}

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "askcore-acp-interop-"));
  [single, batch] = await Promise.all([startAgent("single", singleScript), startAgent("batch", batchScript)]);
});

after(async () => {
  try {
    await Promise.all([stopAgent(single), stopAgent(batch)]);
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  }
});

// newSession starts a session whose forms respond answers.
async function newSession(agent, respond) {
  const session = await agentSession(agent, tmp);
  agent.responders.set(session.sessionId, respond);
  return session;
}

// toolResult checks the tool_call / tool_call_update pair of one call and
// returns the final update.
function toolResult(updates, toolCallId, args) {
  const tools = updates.filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
  assert.equal(tools.length, 2, JSON.stringify(tools));
  const [call, result] = tools;
  assert.equal(call.sessionUpdate, "tool_call");
  assert.equal(call.toolCallId, toolCallId);
  assert.ok(["pending", "in_progress"].includes(call.status), call.status);
  assert.equal(call.kind, "other");
  assert.ok(call.title);
  assert.deepEqual(call.rawInput, args);
  assert.equal(result.sessionUpdate, "tool_call_update");
  assert.equal(result.toolCallId, toolCallId);
  return result;
}

function assertError(result, code) {
  assert.equal(result.status, "failed", JSON.stringify(result.rawOutput));
  assert.deepEqual(Object.keys(result.rawOutput), ["name", "code", "message"], "the core's key order");
  assert.equal(result.rawOutput.name, "UserInteractionError");
  assert.equal(result.rawOutput.code, code);
  assert.ok(result.rawOutput.message);
  // The card shows the core's message.
  assert.deepEqual(cardText(result), [result.rawOutput.message]);
}

function cardText(result) {
  return (result.content ?? []).map((c) => c.content.text);
}

let firstSession;

test("a choice, then a free-form answer in the same session", async () => {
  const session = await newSession(single, async (params) => {
    assert.equal(params.mode, "form");
    assert.equal(params.sessionId, session.sessionId);
    const props = params.requestedSchema.properties;
    if (params.toolCallId === "call_db") {
      assert.equal(params.message, "Which database should I use?");
      assert.deepEqual(props.choice.oneOf.map((o) => o.const).sort(), ["postgres", "sqlite"]);
      assert.equal(props.choice.default, "sqlite");
      assert.ok(props.custom_answer);
      return { action: "accept", content: { choice: "postgres" } };
    }
    assert.equal(params.toolCallId, "call_name");
    assert.ok(props.answer);
    assert.deepEqual(params.requestedSchema.required, ["answer"]);
    return { action: "accept", content: { answer: "askcore" } };
  });
  firstSession = session;

  let r = await turn(session, "set up a project");
  assert.equal(r.stopReason, "end_turn");
  let result = toolResult(r.updates, "call_db", dbArgs);
  assert.equal(result.status, "completed", JSON.stringify(result.rawOutput));
  assert.deepEqual(result.rawOutput, { answer: "postgres", selected: { index: 0, label: "PostgreSQL", value: "postgres" } });
  const answer = coreOut({ op: "elicitation_result", arguments: JSON.stringify(dbArgs), response: { action: "accept", content: { choice: "postgres" } } });
  assert.equal(answer.text, '{"answer":"postgres","selected":{"index":0,"label":"PostgreSQL","value":"postgres"}}');
  assertRawOutputBytes(session, "call_db", answer.text);
  assert.deepEqual(cardText(result), ["PostgreSQL"]);
  assert.deepEqual(texts(r.updates), ["Let me ask.", "You chose postgres."]);

  r = await turn(session, "and a name?");
  assert.equal(r.stopReason, "end_turn");
  result = toolResult(r.updates, "call_name", nameArgs);
  assert.equal(result.status, "completed", JSON.stringify(result.rawOutput));
  assert.deepEqual(result.rawOutput, { answer: "askcore" });
  assert.deepEqual(texts(r.updates), ["Project: askcore."]);
});

test("custom_answer wins over the pre-filled choice", async () => {
  const session = await newSession(single, async () => ({ action: "accept", content: { choice: "sqlite", custom_answer: "DuckDB" } }));
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  const result = toolResult(r.updates, "call_db", dbArgs);
  assert.equal(result.status, "completed", JSON.stringify(result.rawOutput));
  assert.deepEqual(result.rawOutput, { answer: "DuckDB" });
  assert.deepEqual(texts(r.updates), ["Let me ask.", "You chose DuckDB."]);
});

// afterReading waits as long as a person takes to read a form: a decline
// sooner than the core's NotShownMillis (250 ms) is not the person's.
const afterReading = (reply) => async () => {
  await new Promise((r) => setTimeout(r, 300));
  return reply;
};

test("decline reaches the model as ASK_DECLINED", async () => {
  const session = await newSession(single, afterReading({ action: "decline" }));
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  assertError(toolResult(r.updates, "call_db", dbArgs), "ASK_DECLINED");
  assert.deepEqual(texts(r.updates), ["Let me ask.", "You chose ASK_DECLINED."]);
});

test("session/cancel mid-question: ASK_ABORTED and stopReason cancelled", async () => {
  // The SDK sends $/cancel_request from its own goroutine, so the prompt's
  // response may reach the client first: the test waits for both, in
  // either order.
  let withdrawn;
  const cancelled = new Promise((resolve) => (withdrawn = resolve));
  const session = await newSession(single, async (params, signal) => {
    await single.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
    if (signal.aborted) withdrawn();
    else signal.addEventListener("abort", withdrawn, { once: true });
    await cancelled;
    return { action: "cancel" };
  });
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "cancelled");
  assertError(toolResult(r.updates, "call_db", dbArgs), "ASK_ABORTED");
  await withTimeout(cancelled, TIMEOUT, "the elicitation's cancel ($/cancel_request)", single.log.text);
});

test("a decline at once is not the person's: ASK_FAILED, nobody saw the question", async () => {
  const r = await answeredAtOnce(
    async () => turn(await newSession(single, async () => ({ action: "decline" })), "go"),
    (r) => r.updates.some((u) => u.rawOutput?.code === "ASK_FAILED"),
  );
  assert.equal(r.stopReason, "end_turn");
  const result = toolResult(r.updates, "call_db", dbArgs);
  assertError(result, "ASK_FAILED");
  assert.match(result.rawOutput.message, /^Nobody saw the question: /);
});

test("the agent keeps serving after a cancel", async () => {
  const session = await newSession(single, async () => ({ action: "accept", content: { choice: "sqlite" } }));
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  const result = toolResult(r.updates, "call_db", dbArgs);
  assert.deepEqual(result.rawOutput, { answer: "sqlite", selected: { index: 1, label: "SQLite", value: "sqlite" } });
  // and the first session still has its history: past the script's end.
  const more = await turn(firstSession, "anything else?");
  assert.equal(more.stopReason, "end_turn");
});

// checkBatchForm asserts what the client sees of the batch: one form whose
// fields carry each question's position, the multi-select question as an
// array field.
function checkBatchForm(params, session) {
  assert.equal(params.mode, "form");
  assert.equal(params.sessionId, session.sessionId);
  assert.equal(params.toolCallId, "call_batch");
  assert.match(params.message, /2 questions/);
  const props = params.requestedSchema.properties;
  assert.deepEqual(Object.keys(props).sort(), ["choice_1", "choices_2", "custom_answer_2", "notes_1", "notes_2"]);
  assert.equal(props.notes_1.type, "string"); // optional notes per question
  assert.equal(props.choice_1.type, "string");
  assert.equal(props.choice_1.title, "Database");
  assert.equal(props.choice_1.description, "Which database should I use?");
  assert.deepEqual(props.choice_1.oneOf.map((o) => o.const).sort(), ["postgres", "sqlite"]);
  assert.equal(props.choice_1.default, "sqlite");
  assert.equal(props.choices_2.type, "array");
  assert.equal(props.choices_2.title, "Features");
  assert.deepEqual(props.choices_2.items.anyOf, [
    { const: "auth", title: "Auth" },
    { const: "billing", title: "Billing & invoices" },
    { const: "search", title: "Search" },
  ]);
  assert.deepEqual(props.choices_2.default, ["auth"]);
  assert.equal(props.custom_answer_2.type, "string");
}

test("a batch with a multi-select question: one form, the core's answer bytes", async () => {
  const reply = { action: "accept", content: { choice_1: "postgres", choices_2: ["search", "auth"], custom_answer_2: "Export <CSV & JSON>" } };
  const session = await newSession(batch, async (params) => {
    checkBatchForm(params, session);
    return reply;
  });
  const r = await turn(session, "set up a project");
  assert.equal(r.stopReason, "end_turn");
  const result = toolResult(r.updates, "call_batch", batchArgs);
  assert.equal(result.status, "completed", JSON.stringify(result.rawOutput));
  assert.deepEqual(result.rawOutput, {
    answers: [
      { question: "Which database should I use?", answer: "postgres", selected: { index: 0, label: "PostgreSQL", value: "postgres" } },
      {
        question: "Which features do you want?",
        answers: ["auth", "search", "Export <CSV & JSON>"],
        selected: [{ index: 0, label: "Auth", value: "auth" }, { index: 2, label: "Search", value: "search" }],
      },
    ],
  });
  // On the wire: the answer exactly as the core writes it (it escapes <, >
  // and & as \u003c, \u003e, \u0026).
  const answer = coreOut({ op: "elicitation_result", arguments: JSON.stringify(batchArgs), response: reply });
  assert.ok(answer.ok, answer.text);
  assert.match(answer.text, /Export \\u003cCSV \\u0026 JSON\\u003e/);
  assertRawOutputBytes(session, "call_batch", answer.text);
  const card = cardText(result);
  assert.equal(card.length, 1);
  assert.match(card[0], /PostgreSQL/);
  assert.match(card[0], /Auth, Search, Export <CSV & JSON>/);
});

test("a declined batch fails whole with ASK_DECLINED", async () => {
  const session = await newSession(batch, async (params) => {
    checkBatchForm(params, session);
    await new Promise((r) => setTimeout(r, 300)); // a person reads it first
    return { action: "decline" };
  });
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  assertError(toolResult(r.updates, "call_batch", batchArgs), "ASK_DECLINED");
  assert.deepEqual(texts(r.updates), ["Two questions.", "Done: ASK_DECLINED."]);
});

// The reply does not answer the question: the model receives the core's
// invalid_reply error, which quotes what the core told the person about
// the reply (its INVALID_ANSWER message for the form).
test("a non-array for a multi-select field is the core's INVALID_ANSWER", async () => {
  const reply = { action: "accept", content: { choice_1: "postgres", choices_2: "auth" } };
  const session = await newSession(batch, async () => reply);
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  const result = toolResult(r.updates, "call_batch", batchArgs);
  assertError(result, "INVALID_ANSWER");
  assert.match(result.rawOutput.message, /choices_2/);
  const verdict = coreOut({ op: "elicitation_result", arguments: JSON.stringify(batchArgs), response: reply });
  assert.ok(!verdict.ok, verdict.text);
  const told = JSON.parse(verdict.text);
  assert.equal(told.code, "INVALID_ANSWER");
  const want = coreOut({ op: "fail", situation: "invalid_reply", detail: told.message });
  assert.ok(want.ok, want.text);
  assertRawOutputBytes(session, "call_batch", want.text);
});

test("every elicitation/create carried mode, sessionId and toolCallId", () => {
  assert.ok(single.elicitations.length >= 5);
  // One form per batch, and the one whose reply did not answer went back
  // to the person MaxFormRounds (3) more times before INVALID_ANSWER.
  assert.equal(batch.elicitations.length, 3 + 3, "one form per batch, plus the forms sent again");
  for (const p of [...single.elicitations, ...batch.elicitations]) {
    assert.equal(p.mode, "form");
    assert.match(p.sessionId, /\S/);
    assert.match(p.toolCallId, /^call_/);
  }
});

// waitLine resolves with the first line the agent wrote (from `from` on)
// that match accepts.
async function waitLine(agent, from, match, what) {
  const deadline = Date.now() + TIMEOUT;
  for (;;) {
    const line = agent.lines.slice(from).find(match);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no ${what}; stderr:\n${agent.log.text()}`);
    await new Promise((resolve) => agent.child.stdout.once("data", resolve));
  }
}

// writeRaw writes to the agent's stdin beside the client and waits for the
// write to drain: Node's Writable.toWeb drops the next chunk the client
// writes while the stream needs a drain.
async function writeRaw(agent, text) {
  if (!agent.child.stdin.write(text)) await new Promise((resolve) => agent.child.stdin.once("drain", resolve));
}

test("hostile lines mid-question are answered, the question survives", async () => {
  const agent = await startAgent("hostile", singleScript);
  try {
    const answers = [];
    const session = await newSession(agent, async () => {
      // The client is idle while it holds the question: raw lines written
      // to the agent's stdin now cannot cut one of the SDK's.
      const raw = [
        ["this is not JSON {{{", '"id":null,"error":{"code":-32700,"message":"Parse error"}'],
        ["42", '"id":null,"error":{"code":-32600,"message":"Invalid request: a message must be a JSON object"}'],
        ['[{"jsonrpc":"2.0","id":90,"method":"session/list","params":{}}]', '"id":null,"error":{"code":-32600,"message":"Invalid request: JSON-RPC batches are not supported"}'],
        [
          `{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"${"y".repeat(11 << 20)}"}]}}`,
          '"id":"big","error":{"code":-32600,"message":"Invalid request: the line is ',
        ],
      ];
      for (const [line, reply] of raw) {
        const from = agent.lines.length;
        await writeRaw(agent, line + "\n");
        answers.push(await waitLine(agent, from, (l) => l.includes(reply), `answer to ${line.slice(0, 40)}`));
      }
      // A notification over the limit is dropped with a log line.
      await writeRaw(agent, `{"jsonrpc":"2.0","method":"session/cancel","params":{"x":"${"z".repeat(12 << 20)}"}}\n`);
      return { action: "accept", content: { choice: "sqlite" } };
    });
    const r = await turn(session, "go");
    assert.equal(r.stopReason, "end_turn");
    const result = toolResult(r.updates, "call_db", dbArgs);
    assert.equal(result.status, "completed", JSON.stringify(result.rawOutput));
    assert.deepEqual(result.rawOutput, { answer: "sqlite", selected: { index: 1, label: "SQLite", value: "sqlite" } });
    assert.match(answers[3], /at most 10485760 bytes/);
    // ... and the next turn works.
    agent.responders.set(session.sessionId, async () => ({ action: "accept", content: { answer: "atlas" } }));
    const next = await turn(session, "a name?");
    assert.equal(next.stopReason, "end_turn");
    assert.deepEqual(texts(next.updates), ["Project: atlas."]);
    assert.match(agent.log.text(), /discarded a line longer than the line limit \(no id to answer\).*limit=10485760/);
  } finally {
    await stopAgent(agent);
  }
});

test("a 5 MiB reply reaches the client whole, in chunks of at most 64 KiB", async () => {
  const lines = [];
  for (let i = 0, n = 0; n < 5 << 20; i++) {
    lines.push(`line ${i}: the quick brown fox jumps over the lazy dog`);
    n += lines[i].length + 1;
  }
  const text = lines.join("\n");
  const agent = await startAgent("long", [{ content: text }]);
  try {
    const session = await newSession(agent, async () => ({ action: "decline" }));
    const r = await turn(session, "talk");
    assert.equal(r.stopReason, "end_turn");
    const chunks = texts(r.updates);
    assert.ok(chunks.length >= text.length / (64 << 10), `${chunks.length} chunks`);
    for (const c of chunks) assert.ok(Buffer.byteLength(c) <= 64 << 10, `a chunk of ${Buffer.byteLength(c)} bytes`);
    assert.ok(chunks.join("") === text, `${chunks.join("").length} characters, want ${text.length}`);
  } finally {
    await stopAgent(agent);
  }
});

for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  test(`${sig} mid-question: ASK_ABORTED naming it, stopReason cancelled, exit 128+n within 2 s`, async (t) => {
    const agent = await startAgent(`signal-${sig}`, singleScript);
    let sent;
    const session = await newSession(agent, () => {
      sent = Date.now();
      agent.child.kill(sig);
      // Never answered: the agent withdraws the form and exits, and an
      // answer written then would find the pipe closed (EPIPE).
      return new Promise(() => {});
    });
    const r = await turn(session, "go");
    assert.equal(r.stopReason, "cancelled");
    const result = toolResult(r.updates, "call_db", dbArgs);
    assertError(result, "ASK_ABORTED");
    assert.match(result.rawOutput.message, new RegExp(`the agent received ${sig}`));
    const { code } = await withTimeout(agent.exited, TIMEOUT, `askcore-acp's exit after ${sig}`, agent.log.text);
    const took = Date.now() - sent;
    const n = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig];
    assert.equal(code, 128 + n, agent.log.text());
    t.diagnostic(`askcore-acp exited ${took} ms after ${sig}`);
    assert.ok(took < EXIT_BOUND_MS, `exited ${took} ms after ${sig}`);
    agent.conn?.close();
  });
}
