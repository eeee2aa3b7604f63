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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  ElicitRequestFormParamsSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  PrimitiveSchemaDefinitionSchema,
  StringSchemaSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { strip } from "./forms.mjs";
import { assertResult, callTool, connectServer, TIMEOUT } from "./server.mjs";
import { coreOut } from "../../../testdata/interop/core.mjs";
import { withTimeout } from "../../../testdata/interop/child.mjs";
import { assertNotesFields, assertPreviews, calls } from "../../../testdata/interop/preview-notes.mjs";

const cases = [
  { name: "single question", ...calls.single },
  { name: "multi-select question", ...calls.multi },
  { name: "batch", ...calls.batch },
];

let cacheHome;
let server;
let respond = null;
const forms = [];

before(async () => {
  cacheHome = mkdtempSync(path.join(tmpdir(), "askcore-mcp-interop-preview-notes-"));
  server = await connectServer({
    clientName: "askcore-interop-preview-notes",
    capabilities: { elicitation: { form: {} } },
    env: { ...process.env, XDG_CACHE_HOME: cacheHome },
  });
  server.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    forms.push(request.params);
    if (!respond) throw new Error(`unexpected form: ${request.params.message}`);
    return respond(request.params);
  });
});

after(async () => {
  try {
    await server?.close();
  } finally {
    if (cacheHome) rmSync(cacheHome, { recursive: true, force: true, maxRetries: 10 });
  }
});

// call calls the tool within a deadline that quotes the server's stderr.
const call = (args) => withTimeout(callTool(server, args), TIMEOUT, "tools/call", server.log.text);

test("tools/list: the input schema offers preview on every option", async () => {
  const { tools } = await server.client.listTools();
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
    assertNotesFields(form.requestedSchema, tc);
    for (const n of tc.notes) {
      const field = form.requestedSchema.properties[n];
      assert.ok(StringSchemaSchema.safeParse(field).success, n);
      assert.ok(PrimitiveSchemaDefinitionSchema.safeParse(field).success, n);
      assert.deepEqual(parsed.data.requestedSchema.properties[n], field, `${n} reaches the client whole`);
    }

    // The previews, in display order, each under its bold line.
    assertPreviews(form.message, tc);

    const reply = { action: "accept", content: tc.content };
    assert.ok(ElicitResultSchema.safeParse(reply).success, "the reply is an MCP elicitation result");
    const before = forms.length;
    respond = async () => reply;
    const result = await call(tc.args);

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
    assertResult(result, want.text, false);
  });
}

test("notes left empty: the answer has no notes, byte for byte the answer without notes", async () => {
  const reply = { action: "accept", content: { choice: "by-feature", notes: "" } };
  respond = async () => reply;
  const result = await call(calls.single.args);
  const want = coreOut({ op: "elicitation_result", arguments: JSON.stringify(calls.single.args), response: reply });
  assert.equal(want.text, '{"answer":"by-feature","selected":{"index":0,"label":"By feature","value":"by-feature"}}');
  assert.equal(result.content[0].text, want.text);
});
