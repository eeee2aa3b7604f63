// The preview and notes calls both interop suites ask (docs/SPEC.md,
// "Forms" and "Answers"), and what the core's form for each must hold
// whichever client is sent it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

// The calls and the replies to them, with what the form shows and the
// core's answer, from preview-notes-calls.json (the Go tests read the same
// file: internal/testing/interopcalls).
const { single, multi, batch, replies } = JSON.parse(readFileSync(new URL("./preview-notes-calls.json", import.meta.url), "utf8"));

// withAnswer is the person's reply to a call with the core's answer, as the
// object (answer) and byte for byte (answerBytes).
const withAnswer = (r) => ({ ...r, answer: JSON.parse(r.answer), answerBytes: r.answer });

// calls are the single, the multi-select and the batch call: each its
// arguments (args), the fields and notes fields of its form, its previews
// in display order, the reply's content, and the core's answer to it.
export const calls = {
  single: { args: single, ...withAnswer(replies.single) },
  multi: { args: multi, ...withAnswer(replies.multi) },
  batch: { args: batch, ...withAnswer(replies.batch) },
};

// assertNotesFields: the form's requestedSchema has call's fields, each
// notes field after its question's, and each notes field is optional text
// of at most 2000 characters with a title.
export function assertNotesFields(schema, call) {
  assert.deepEqual(Object.keys(schema.properties), call.fields, "each notes field after its question's fields");
  for (const n of call.notes) {
    const field = schema.properties[n];
    assert.equal(field.type, "string");
    assert.equal(field.maxLength, 2000);
    assert.ok(field.title, n);
    assert.ok(!(schema.required ?? []).includes(n), `${n} is optional`);
  }
}

// assertPreviews: the form's message carries call's previews in display
// order, each a Markdown block of its own.
export function assertPreviews(message, call) {
  let at = 0;
  for (const p of call.previews) {
    const i = message.indexOf(`\n\n${p}\n\n`, at);
    assert.ok(i >= 0, `${p} after ${at} in:\n${message}`);
    at = i + p.length;
  }
}
