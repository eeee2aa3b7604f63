// Interop test of previews and notes (docs/SPEC.md, "Forms" and "Answers"): the
// official TypeScript ACP client (@agentclientprotocol/sdk) drives the real
// askcore-acp binary, whose scripted model asks a single, a multi-select and
// a batch question with previews, one per prompt; the client answers each
// form with notes. Run by scripts/test-interop.sh acp, after
// interop.test.mjs.
//
// What it checks, for each call:
// - the form the client's handler receives (parsed by the SDK's own zod
//   schema for elicitation/create) is the core's (hostjs, the same
//   askcore.wasm the binary embeds): its message carries the previews as
//   Markdown, its schema one optional notes field per question;
// - the core's form passes the SDK's validated type guards
//   (CreateElicitationRequest.isForm, ElicitationPropertySchema,
//   MultiSelectItems), and the client's reply CreateElicitationResponse;
// - rawOutput is the core's answer for the reply, notes included, byte for
//   byte on the wire, and the model's next words quote the notes
//   ({{notes}}).
//
// ASKCORE_ACP_BIN overrides the binary (default: ../../../bin/askcore-acp);
// ASKCORE_ENGINE, when set, is passed as --engine.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { load } from "../../../hostjs/node.js";
import { coreText } from "../../../testdata/interop/core.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// The preview and notes calls every suite asks, and the replies to them
// with what the form shows and the core's answer (the Go tests read the
// same file).
const { single: singleArgs, multi: multiArgs, batch: batchArgs, replies } = JSON.parse(
  readFileSync(path.resolve(here, "../../../testdata/interop/preview-notes-calls.json"), "utf8"),
);
const bin = process.env.ASKCORE_ACP_BIN || path.resolve(here, "../../../bin/askcore-acp");
const TIMEOUT = 120_000;

// withAnswer is the person's reply to a call with the core's answer, as the
// object (answer) and byte for byte (answerBytes).
const withAnswer = (r) => ({ ...r, answer: JSON.parse(r.answer), answerBytes: r.answer });

const turns = [
  { id: "call_single", args: singleArgs, ...withAnswer(replies.single), text: "single: by-layer / notes: keep shared code in common/" },
  { id: "call_multi", args: multiArgs, ...withAnswer(replies.multi), text: "multi: search, export / notes: CSV <first> & JSON later" },
  {
    id: "call_batch",
    args: batchArgs,
    ...withAnswer(replies.batch),
    text: "batch: postgres; search, Audit log; Aurora / notes: but keep v15; named after the sky",
  },
];

// The scripted model: one call per prompt, then the answer and its notes.
const script = turns.flatMap((t) => [
  { tool_calls: [{ id: t.id, name: "ask_user_question", arguments: t.args }] },
  { content: `${t.id.slice(5)}: {{answer}} / notes: {{notes}}` },
]);

let core;
let tmp;
let child;
let exited;
let stderr = "";
const lines = [];
const received = [];
let conn;

before(async () => {
  core = await load();
  tmp = mkdtempSync(path.join(tmpdir(), "askcore-acp-interop-preview-notes-"));
  const scriptFile = path.join(tmp, "preview-notes.jsonl");
  writeFileSync(scriptFile, script.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const args = ["--script", scriptFile];
  if (process.env.ASKCORE_ENGINE) args.push("--engine", process.env.ASKCORE_ENGINE);
  child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, XDG_CACHE_HOME: path.join(tmp, "cache") } });
  child.stderr.on("data", (d) => (stderr += d));
  exited = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  // A tap between the agent's stdout and the client: the raw lines.
  const tap = new PassThrough();
  let partial = "";
  child.stdout.on("data", (chunk) => {
    const parts = (partial + chunk.toString("utf8")).split("\n");
    partial = parts.pop();
    lines.push(...parts);
  });
  child.stdout.pipe(tap);

  const app = acp.client({ name: "askcore-interop-preview-notes" }).onRequest(acp.methods.client.elicitation.create, async ({ params }) => {
    received.push(params);
    const turn = turns.find((t) => t.id === params.toolCallId);
    if (!turn) throw new Error(`unexpected form for ${params.toolCallId}`);
    return { action: "accept", content: turn.content };
  });
  conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(tap)));
  const init = await conn.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
    clientInfo: { name: "askcore-interop-preview-notes", version: "0.0.0" },
  });
  assert.equal(init.agentInfo?.name, "askcore-acp");
});

after(async () => {
  try {
    conn?.close();
    child?.stdin.end();
    if (exited) {
      const { code, signal } = await withTimeout(exited, "askcore-acp did not exit");
      assert.equal(code, 0, `askcore-acp exited with ${code ?? signal}; stderr:\n${stderr}`);
    }
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  }
});

function withTimeout(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${TIMEOUT} ms; stderr:\n${stderr}`)), TIMEOUT))),
  ]).finally(() => clearTimeout(timer));
}

const coreOut = (envelope) => coreText(core, envelope);

async function turn(session, text) {
  const done = session.prompt(text);
  const failed = done.then(() => new Promise(() => {}));
  const updates = [];
  for (;;) {
    const m = await withTimeout(Promise.race([session.nextUpdate(), failed]), "no update");
    if (m.kind === "stop") {
      await done;
      return { updates, stopReason: m.stopReason };
    }
    updates.push(m.update);
  }
}

let session;

for (const [i, t] of turns.entries()) {
  test(`${t.id}: previews in the message, notes fields, the core's answer with notes`, async () => {
    session ??= await conn.agent.buildSession(tmp).start();
    const argsText = JSON.stringify(t.args);
    const form = JSON.parse(coreOut({ op: "elicitation", arguments: argsText }).text);

    // The core's form is an ACP form elicitation by the SDK's own guards.
    const request = { sessionId: session.sessionId, toolCallId: t.id, mode: "form", ...form };
    assert.ok(acp.CreateElicitationRequest.isForm(request), "CreateElicitationRequest.isForm");
    assert.deepEqual(Object.keys(form.requestedSchema.properties), t.fields, "each notes field after its question's fields");
    for (const [name, p] of Object.entries(form.requestedSchema.properties)) {
      if (p.type === "array") {
        assert.ok(acp.ElicitationPropertySchema.isArray(p), name);
        assert.ok(acp.MultiSelectItems.isTitled(p.items), name);
      } else {
        assert.ok(acp.ElicitationPropertySchema.isString(p), name);
      }
    }
    for (const n of t.notes) {
      const field = form.requestedSchema.properties[n];
      assert.equal(field.type, "string");
      assert.equal(field.maxLength, 2000);
      assert.ok(field.title, n);
      assert.ok(!(form.requestedSchema.required ?? []).includes(n), `${n} is optional`);
    }
    let at = 0;
    for (const p of t.previews) {
      const j = form.message.indexOf(`\n\n${p}\n\n`, at);
      assert.ok(j >= 0, `${p} after ${at} in:\n${form.message}`);
      at = j + p.length;
    }
    const reply = { action: "accept", content: t.content };
    assert.ok(acp.CreateElicitationResponse.isAccept(reply), "CreateElicitationResponse.isAccept");

    const r = await turn(session, "next");
    assert.equal(r.stopReason, "end_turn");

    // What the client's handler received, parsed by the SDK: the core's
    // form, whole.
    assert.equal(received.length, i + 1, "one form per call");
    const seen = received[i];
    assert.equal(seen.mode, "form");
    assert.equal(seen.toolCallId, t.id);
    assert.equal(seen.message, form.message, "the message is the core's, previews included");
    assert.deepEqual(seen.requestedSchema, form.requestedSchema);

    // rawOutput: the core's answer for the reply, byte for byte on the wire.
    const want = coreOut({ op: "elicitation_result", arguments: argsText, response: reply });
    assert.ok(want.ok, want.text);
    assert.equal(want.text, t.answerBytes, "the same bytes as the Go core's");
    assert.deepEqual(JSON.parse(want.text), t.answer);
    const tools = r.updates.filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
    assert.equal(tools.length, 2, JSON.stringify(tools));
    assert.deepEqual(tools[0].rawInput, t.args);
    assert.equal(tools[1].status, "completed", JSON.stringify(tools[1].rawOutput));
    assert.deepEqual(tools[1].rawOutput, t.answer);
    const wire = lines.filter((l) => l.includes(`"toolCallId":${JSON.stringify(t.id)}`) && l.includes('"tool_call_update"'));
    assert.equal(wire.length, 1, wire.join("\n"));
    assert.ok(wire[0].includes(`"rawOutput":${want.text},`), `rawOutput is not ${want.text} in\n${wire[0]}`);
    const summary = JSON.parse(coreOut({ op: "summary", arguments: argsText, answer: JSON.parse(want.text) }).text).text;
    assert.deepEqual((tools[1].content ?? []).map((c) => c.content.text), [summary], "the card is the core's summary");
    assert.match(summary, /\(notes: /);

    // The model's next words: {{answer}} and {{notes}}.
    const said = r.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);
    assert.deepEqual(said, [t.text]);
  });
}
