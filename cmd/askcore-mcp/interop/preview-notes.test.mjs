// Interop test of previews and notes (docs/SPEC.md, "Forms" and "Answers"): the
// official TypeScript MCP client (@modelcontextprotocol/sdk) spawns the real
// askcore-mcp binary and answers forms whose options carry previews, adding
// notes. Run by scripts/test-interop.sh mcp, after interop.test.mjs.
//
// What it checks, for a single, a multi-select and a batch call:
// - the form the client's handler receives is the core's (hostjs, the same
//   askcore.wasm the binary embeds): its message carries the previews as
//   Markdown, its schema one optional notes field per question;
// - the core's form validates against the SDK's own zod schema for
//   elicitation requests (ElicitRequestFormParamsSchema), which keeps every
//   field the notes need, and the client's reply against ElicitResultSchema;
// - the tool result is the core's answer for the reply, notes included,
//   byte for byte.
//
// ASKCORE_MCP_BIN overrides the binary (default: ../../../bin/askcore-mcp);
// ASKCORE_ENGINE, when set, is passed as --engine.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  ElicitRequestFormParamsSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  PrimitiveSchemaDefinitionSchema,
  StringSchemaSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { load } from "../../../hostjs/node.js";
import { strip } from "./forms.mjs";
import { coreText } from "../../../testdata/interop/core.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// The preview and notes calls every suite asks, and the replies to them
// with what the form shows and the core's answer (the Go tests read the
// same file).
const { single: singleArgs, multi: multiArgs, batch: batchArgs, replies } = JSON.parse(
  readFileSync(path.resolve(here, "../../../testdata/interop/preview-notes-calls.json"), "utf8"),
);
const bin = process.env.ASKCORE_MCP_BIN || path.resolve(here, "../../../bin/askcore-mcp");
const engineArgs = process.env.ASKCORE_ENGINE ? ["--engine", process.env.ASKCORE_ENGINE] : [];
const TIMEOUT = 30_000;
const TOOL = "ask_user_question";

// withAnswer is the person's reply to a call with the core's answer, as the
// object (answer) and byte for byte (answerBytes).
const withAnswer = (r) => ({ ...r, answer: JSON.parse(r.answer), answerBytes: r.answer });

const cases = [
  { name: "single question", args: singleArgs, ...withAnswer(replies.single) },
  { name: "multi-select question", args: multiArgs, ...withAnswer(replies.multi) },
  { name: "batch", args: batchArgs, ...withAnswer(replies.batch) },
];

let core;
let cacheHome;
let client;
let transport;
let stderr = "";
let respond = null;
const forms = [];

before(async () => {
  core = await load();
  cacheHome = mkdtempSync(path.join(tmpdir(), "askcore-mcp-interop-preview-notes-"));
  transport = new StdioClientTransport({
    command: bin,
    args: engineArgs,
    env: { ...process.env, XDG_CACHE_HOME: cacheHome },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d) => (stderr += d));
  client = new Client({ name: "askcore-interop-preview-notes", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    forms.push(request.params);
    if (!respond) throw new Error(`unexpected form: ${request.params.message}`);
    return respond(request.params);
  });
  await withTimeout(client.connect(transport), "connect");
});

after(async () => {
  try {
    await client?.close();
    assert.doesNotMatch(stderr, /panic|goroutine \d+ \[/);
  } finally {
    if (cacheHome) rmSync(cacheHome, { recursive: true, force: true, maxRetries: 10 });
  }
});

function withTimeout(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${TIMEOUT} ms; server stderr:\n${stderr}`)), TIMEOUT))),
  ]).finally(() => clearTimeout(timer));
}

// coreOut runs one envelope through the core and returns the result's or
// the error's JSON text exactly as the core wrote it.
const coreOut = (envelope) => coreText(core, envelope);

test("tools/list: the input schema offers preview on every option", async () => {
  const { tools } = await client.listTools();
  assert.equal(tools.length, 1);
  const schema = tools[0].inputSchema;
  assert.deepEqual(schema, JSON.parse(coreOut({ op: "schema" }).text).parameters);
  for (const options of [schema.properties.options, schema.properties.questions.items.properties.options]) {
    const preview = options.items.properties.preview;
    assert.equal(preview.type, "string");
    assert.ok(preview.maxLength >= 4000, JSON.stringify(preview));
    assert.match(preview.description, /compared by looking/);
    assert.equal(options.items.additionalProperties, false);
  }
});

for (const tc of cases) {
  test(`${tc.name}: previews in the message, notes fields, the core's answer with notes`, async () => {
    const argsText = JSON.stringify(tc.args);
    const form = JSON.parse(coreOut({ op: "elicitation", for: "mcp", arguments: argsText }).text);

    // The core's form is an MCP form: the SDK's zod schema for
    // elicitation requests accepts it and keeps the message and the notes
    // fields whole.
    const parsed = ElicitRequestFormParamsSchema.safeParse({ mode: "form", ...form });
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
    assert.equal(parsed.data.message, form.message);
    assert.deepEqual(parsed.data.requestedSchema, strip(form.requestedSchema));
    assert.deepEqual(Object.keys(form.requestedSchema.properties), tc.fields, "each notes field after its question's fields");
    for (const n of tc.notes) {
      const field = form.requestedSchema.properties[n];
      assert.ok(StringSchemaSchema.safeParse(field).success, n);
      assert.ok(PrimitiveSchemaDefinitionSchema.safeParse(field).success, n);
      assert.deepEqual(parsed.data.requestedSchema.properties[n], field, `${n} reaches the client whole`);
      assert.equal(field.type, "string");
      assert.equal(field.maxLength, 2000);
      assert.ok(field.title, n);
      assert.ok(!(form.requestedSchema.required ?? []).includes(n), `${n} is optional`);
    }

    // The previews, in display order, each under its bold line.
    let at = 0;
    for (const p of tc.previews) {
      const i = form.message.indexOf(`\n\n${p}\n\n`, at);
      assert.ok(i >= 0, `${p} after ${at} in:\n${form.message}`);
      at = i + p.length;
    }

    const reply = { action: "accept", content: tc.content };
    assert.ok(ElicitResultSchema.safeParse(reply).success, "the reply is an MCP elicitation result");
    const before = forms.length;
    respond = async () => reply;
    const result = await withTimeout(client.callTool({ name: TOOL, arguments: tc.args }, CallToolResultSchema, { timeout: TIMEOUT }), "tools/call");

    // What the client's handler received: the core's form, as zod passed
    // it on.
    assert.equal(forms.length, before + 1, "one form for the call");
    const seen = forms.at(-1);
    assert.equal(seen.mode, "form");
    assert.equal(seen.message, form.message, "the message is the core's, previews included");
    assert.deepEqual(seen.requestedSchema, strip(form.requestedSchema));

    // The result: the core's answer for this reply, byte for byte.
    const want = coreOut({ op: "elicitation_result", arguments: argsText, response: reply });
    assert.ok(want.ok, want.text);
    assert.equal(want.text, tc.answerBytes, "the same bytes as the Go core's");
    assert.deepEqual(JSON.parse(want.text), tc.answer);
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.equal(result.content.length, 1);
    assert.equal(result.content[0].type, "text");
    assert.equal(result.content[0].text, want.text, "the text content is the core's bytes");
    assert.deepEqual(result.structuredContent, tc.answer);
  });
}

test("notes left empty: the answer has no notes, byte for byte the answer without notes", async () => {
  const reply = { action: "accept", content: { choice: "by-feature", notes: "" } };
  respond = async () => reply;
  const result = await withTimeout(client.callTool({ name: TOOL, arguments: singleArgs }, CallToolResultSchema, { timeout: TIMEOUT }), "tools/call");
  const want = coreOut({ op: "elicitation_result", arguments: JSON.stringify(singleArgs), response: reply });
  assert.equal(want.text, '{"answer":"by-feature","selected":{"index":0,"label":"By feature","value":"by-feature"}}');
  assert.equal(result.content[0].text, want.text);
});
