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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { coreOut } from "../../../testdata/interop/core.mjs";
import { assertNotesFields, assertPreviews, calls } from "../../../testdata/interop/preview-notes.mjs";
import { assertRawOutputBytes, newSession, spawnAgent, stopAgent, texts, turn } from "./agent.mjs";

const TIMEOUT = 120_000;

const turns = [
  { id: "call_single", ...calls.single, text: "single: by-layer / notes: keep shared code in common/" },
  { id: "call_multi", ...calls.multi, text: "multi: search, export / notes: CSV <first> & JSON later" },
  { id: "call_batch", ...calls.batch, text: "batch: postgres; search, Audit log; Aurora / notes: but keep v15; named after the sky" },
];

// The scripted model: one call per prompt, then the answer and its notes.
const script = turns.flatMap((t) => [
  { tool_calls: [{ id: t.id, name: "ask_user_question", arguments: t.args }] },
  { content: `${t.id.slice(5)}: {{answer}} / notes: {{notes}}` },
]);

let tmp;
let agent;
const received = [];

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "askcore-acp-interop-preview-notes-"));
  agent = await spawnAgent({
    dir: tmp,
    name: "preview-notes",
    script,
    clientName: "askcore-interop-preview-notes",
    timeout: TIMEOUT,
    onElicitation: async ({ params }) => {
      received.push(params);
      const turn = turns.find((t) => t.id === params.toolCallId);
      if (!turn) throw new Error(`unexpected form for ${params.toolCallId}`);
      return { action: "accept", content: turn.content };
    },
  });
});

after(async () => {
  try {
    await stopAgent(agent);
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  }
});

let session;

for (const [i, t] of turns.entries()) {
  test(`${t.id}: previews in the message, notes fields, the core's answer with notes`, async () => {
    session ??= await newSession(agent, tmp);
    const argsText = JSON.stringify(t.args);
    const form = JSON.parse(coreOut({ op: "elicitation", arguments: argsText }).text);

    // The core's form is an ACP form elicitation by the SDK's own guards.
    const request = { sessionId: session.sessionId, toolCallId: t.id, mode: "form", ...form };
    assert.ok(acp.CreateElicitationRequest.isForm(request), "CreateElicitationRequest.isForm");
    assertNotesFields(form.requestedSchema, t);
    for (const [name, p] of Object.entries(form.requestedSchema.properties)) {
      if (p.type === "array") {
        assert.ok(acp.ElicitationPropertySchema.isArray(p), name);
        assert.ok(acp.MultiSelectItems.isTitled(p.items), name);
      } else {
        assert.ok(acp.ElicitationPropertySchema.isString(p), name);
      }
    }
    assertPreviews(form.message, t);
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
    assertRawOutputBytes(session, t.id, want.text);
    const summary = JSON.parse(coreOut({ op: "summary", arguments: argsText, answer: JSON.parse(want.text) }).text).text;
    assert.deepEqual((tools[1].content ?? []).map((c) => c.content.text), [summary], "the card is the core's summary");
    assert.match(summary, /\(notes: /);

    // The model's next words: {{answer}} and {{notes}}.
    assert.deepEqual(texts(r.updates), [t.text]);
  });
}
