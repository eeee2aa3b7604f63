// Interop test: the official TypeScript ACP client (@agentclientprotocol/sdk,
// which validates every message with zod) drives the real askcore-acp binary
// over stdio. Run by scripts/test-interop.sh (`make test-interop`).
//
// ASKCORE_ACP_BIN overrides the binary (default: ../../../bin/askcore-acp);
// ASKCORE_ENGINE, when set, is passed as --engine.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.ASKCORE_ACP_BIN || path.resolve(here, "../../../bin/askcore-acp");

// The scripted model: each session replays it from its first line. Prompt 1
// asks a choice question (options + free text); prompt 2 an optionless one.
const dbArgs = {
  header: "Database",
  question: "Which database should I use?",
  options: [
    { label: "PostgreSQL", value: "postgres", description: "a server" },
    { label: "SQLite", value: "sqlite", recommended: true },
  ],
  allowCustom: true,
};
const script = [
  { content: "Let me ask.", tool_calls: [{ id: "call_db", name: "ask_user_question", arguments: dbArgs }] },
  { content: "You chose {{answer}}." },
  { tool_calls: [{ id: "call_name", name: "ask_user_question", arguments: { question: "What should the project be called?" } }] },
  { content: "Project: {{answer}}." },
];

const TIMEOUT = 20_000;
let child, conn, exited, tmp;
let stderr = "";
// sessionId -> async (params, signal) => elicitation response
const responders = new Map();
const elicitations = [];

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "askcore-acp-interop-"));
  const scriptFile = path.join(tmp, "script.jsonl");
  writeFileSync(scriptFile, script.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const args = ["--script", scriptFile];
  if (process.env.ASKCORE_ENGINE) args.push("--engine", process.env.ASKCORE_ENGINE);
  child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
  child.stderr.on("data", (d) => (stderr += d));
  exited = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });

  const app = acp
    .client({ name: "askcore-interop" })
    .onRequest(acp.methods.client.elicitation.create, async ({ params, signal }) => {
      elicitations.push(params);
      const respond = responders.get(params.sessionId);
      if (!respond) throw new Error(`no responder for session ${params.sessionId}`);
      return respond(params, signal);
    });
  conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));

  const init = await conn.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
    clientInfo: { name: "askcore-interop", version: "0.0.0" },
  });
  assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
  assert.equal(init.agentInfo?.name, "askcore-acp");
});

after(async () => {
  conn?.close();
  child?.stdin.end();
  const { code, signal } = await withTimeout(exited, TIMEOUT, "askcore-acp did not exit");
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  assert.equal(code, 0, `askcore-acp exited with ${code ?? signal}; stderr:\n${stderr}`);
});

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms; stderr:\n${stderr}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

async function newSession(respond) {
  const session = await conn.agent.buildSession(tmp).start();
  responders.set(session.sessionId, respond);
  return session;
}

// turn sends one prompt and collects the session's updates, in order, until
// the prompt stops.
async function turn(session, text) {
  const done = session.prompt(text);
  const failed = done.then(() => new Promise(() => {}));
  const updates = [];
  for (;;) {
    const m = await withTimeout(Promise.race([session.nextUpdate(), failed]), TIMEOUT, "no update");
    if (m.kind === "stop") {
      await done;
      return { updates, stopReason: m.stopReason };
    }
    updates.push(m.update);
  }
}

function texts(updates) {
  return updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);
}

// toolEvents checks the tool_call / tool_call_update pair of one call and
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
  assert.equal(result.rawOutput.name, "UserInteractionError");
  assert.equal(result.rawOutput.code, code);
  assert.ok(result.rawOutput.message);
}

let firstSession;

test("a choice, then a free-form answer in the same session", async () => {
  const session = await newSession(async (params) => {
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
  assert.deepEqual(texts(r.updates), ["Let me ask.", "You chose postgres."]);

  r = await turn(session, "and a name?");
  assert.equal(r.stopReason, "end_turn");
  result = toolResult(r.updates, "call_name", { question: "What should the project be called?" });
  assert.equal(result.status, "completed", JSON.stringify(result.rawOutput));
  assert.deepEqual(result.rawOutput, { answer: "askcore" });
  assert.deepEqual(texts(r.updates), ["Project: askcore."]);
});

test("custom_answer wins over the pre-filled choice", async () => {
  const session = await newSession(async () => ({ action: "accept", content: { choice: "sqlite", custom_answer: "DuckDB" } }));
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  const result = toolResult(r.updates, "call_db", dbArgs);
  assert.equal(result.status, "completed", JSON.stringify(result.rawOutput));
  assert.deepEqual(result.rawOutput, { answer: "DuckDB" });
  assert.deepEqual(texts(r.updates), ["Let me ask.", "You chose DuckDB."]);
});

test("decline reaches the model as ASK_DECLINED", async () => {
  const session = await newSession(async () => ({ action: "decline" }));
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  assertError(toolResult(r.updates, "call_db", dbArgs), "ASK_DECLINED");
  assert.deepEqual(texts(r.updates), ["Let me ask.", "You chose ASK_DECLINED."]);
});

test("session/cancel mid-question: ASK_ABORTED and stopReason cancelled", async () => {
  let aborted = false;
  const session = await newSession(async (params, signal) => {
    await conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
    await withTimeout(
      new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", resolve, { once: true }))),
      TIMEOUT,
      "the elicitation was not cancelled ($/cancel_request)",
    );
    aborted = true;
    return { action: "cancel" };
  });
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "cancelled");
  assert.ok(aborted, "the pending elicitation request was cancelled");
  assertError(toolResult(r.updates, "call_db", dbArgs), "ASK_ABORTED");
});

test("the agent keeps serving after a cancel", async () => {
  const session = await newSession(async () => ({ action: "accept", content: { choice: "sqlite" } }));
  const r = await turn(session, "go");
  assert.equal(r.stopReason, "end_turn");
  const result = toolResult(r.updates, "call_db", dbArgs);
  assert.deepEqual(result.rawOutput, { answer: "sqlite", selected: { index: 1, label: "SQLite", value: "sqlite" } });
  // and the first session still has its history: past the script's end.
  const more = await turn(firstSession, "anything else?");
  assert.equal(more.stopReason, "end_turn");
});

test("every elicitation/create carried mode, sessionId and toolCallId", () => {
  assert.ok(elicitations.length >= 5);
  for (const p of elicitations) {
    assert.equal(p.mode, "form");
    assert.match(p.sessionId, /\S/);
    assert.match(p.toolCallId, /^call_/);
  }
});
