// Loading from every kind of source, the byte path, the helpers, the WASI shim.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  load, Core, ABI_VERSION, RAW, answerText, UserInteractionError, HarnessError, HostFaultError, isUserInteractionError, Codes,
} from '@askcore/askcore';
import { hostjsDir, DB_REQUEST, rejectsWith } from './helpers.mjs';
import { MAX_ARGUMENTS_BYTES } from '../lib/core.js';

const wasmPath = join(hostjsDir, 'askcore.wasm');
const bytes = readFileSync(wasmPath);
const core = await load();
const SCHEMA = '{"op":"schema"}';
const schemaOut = core.handle(SCHEMA);

test('load() with no source uses the bundled module and caches its compilation', async () => {
  assert.ok(core instanceof Core);
  assert.equal(ABI_VERSION, 1);
  const again = await load();
  assert.equal(again.module, core.module, 'compiled module reused');
  assert.notEqual(again, core, 'each load() is a new instance');
  assert.equal(again.handle(SCHEMA), schemaOut);
});

test('load() from bytes, ArrayBuffer, Module, Response and Promise<Response>', async () => {
  const u8 = new Uint8Array(bytes);
  const ab = u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength);
  const sources = {
    Uint8Array: u8,
    Buffer: bytes,
    ArrayBuffer: ab,
    Module: core.module,
    'Response (application/wasm, streaming)': new Response(u8, { headers: { 'content-type': 'application/wasm' } }),
    'Response (no content-type)': new Response(u8),
    'Promise<Response>': Promise.resolve(new Response(u8, { headers: { 'content-type': 'application/wasm' } })),
  };
  for (const [kind, src] of Object.entries(sources)) {
    const c = await load(src);
    assert.equal(c.handle(SCHEMA), schemaOut, kind);
  }
  assert.equal((await load(u8)).module, (await load(u8)).module, 'same bytes object: compiled once');
});

test('load() rejects what it cannot use', async () => {
  await assert.rejects(load(/** @type {any} */ (42)), TypeError);
  await assert.rejects(load(new Response('nope', { status: 404 })), HostFaultError);
  await assert.rejects(load(new Uint8Array([0, 1, 2, 3])), WebAssembly.CompileError);
});

test('handle: a string and its UTF-8 bytes give the same output', () => {
  for (const q of ['plain', 'é ü ß', '日本語のデータベース', 'emoji 🐘🐬', 'lone \ud800 surrogate', '<b>&amp;</b>']) {
    const env = JSON.stringify({ op: 'normalize', request: { question: q } });
    const fromString = core.handle(env);
    assert.equal(core.handle(new TextEncoder().encode(env)), fromString, q);
    assert.equal(new TextDecoder().decode(core.handleBytes(env)), fromString, q);
  }
});

test('handle never throws on malformed input: ok:false envelopes', () => {
  const inputs = ['', 'null', 'not json', '[]', '{"op":"nope"}', '{"op":"normalize"}', new Uint8Array([0xff, 0xfe, 0x7b]), new Uint8Array(0)];
  for (const input of inputs) {
    const v = JSON.parse(core.handle(input));
    assert.equal(v.ok, false, String(input));
    assert.equal(v.error.name, 'UserInteractionError');
    assert.equal(typeof v.error.code, 'string');
  }
});

test('inputs near and over the guest cap; memory growth is followed', () => {
  const c = core;
  const big = JSON.stringify({ op: 'normalize', request: { question: 'x'.repeat(c.maxInputBytes - 64) } });
  assert.ok(big.length <= c.maxInputBytes);
  const v = JSON.parse(c.handle(big)); // the core's own answer (likely a length limit)
  assert.equal(typeof v.ok, 'boolean');
  const over = new Uint8Array(c.maxInputBytes + 1).fill(0x20);
  const o = JSON.parse(c.handle(over));
  assert.equal(o.ok, false);
  assert.equal(o.error.code, 'INVALID_REQUEST');
  assert.equal(o.error.message, `the input is ${c.maxInputBytes + 1} bytes; at most ${c.maxInputBytes} are allowed: send the model's arguments as text in arguments, shortened to at most ${MAX_ARGUMENTS_BYTES} bytes`);
  const overString = ' '.repeat(c.maxInputBytes + 1);
  assert.equal(JSON.parse(c.handle(overString)).error.code, 'INVALID_REQUEST');
  // Strings whose worst case exceeds the cap but whose bytes fit still reach the core.
  const fits = JSON.stringify({ op: 'normalize', request: { question: 'q' } }) + ' '.repeat(Math.floor(c.maxInputBytes / 2));
  assert.equal(c.handle(fits), c.handle(new TextEncoder().encode(fits)));
  assert.equal(c.handle(SCHEMA), schemaOut);
});

test('an instance that outgrew maxMemoryBytes is replaced transparently', async () => {
  const c = await load(undefined, { maxMemoryBytes: 1 }); // replaced after every call
  for (let i = 0; i < 5; i++) assert.equal(c.handle(SCHEMA), schemaOut);
});

test('a fault inside a call discards the instance; the next call runs on a fresh one', async () => {
  let armed = false;
  const platform = {
    monotonicNs: () => {
      if (armed) throw new Error('injected host fault');
      return process.hrtime.bigint();
    },
  };
  const c = await load(undefined, { platform });
  const env = JSON.stringify({ op: 'normalize', request: DB_REQUEST });
  const want = c.handle(env);
  armed = true;
  let fault;
  for (let i = 0; i < 100000 && !fault; i++) {
    try {
      c.handle(env + ' '.repeat(i % 64)); // garbage for the GC, which reads the clock
    } catch (e) {
      fault = e;
    }
  }
  armed = false;
  assert.ok(fault instanceof HostFaultError, String(fault));
  assert.match(fault.message, /injected host fault/);
  assert.equal(c.handle(env), want);
});

test('helpers: normalize, schema, present, resolve, elicitation, elicitationResult', () => {
  const n = core.normalize(DB_REQUEST);
  assert.equal(n.options.length, 4);
  assert.equal(n.options[1].value, 'SQLite', 'value defaults to label');
  const { request, raw } = core.normalizeRaw(DB_REQUEST);
  assert.deepEqual(request, n);
  assert.equal(core.handle(JSON.stringify({ op: 'normalize', request: DB_REQUEST })), '{"ok":true,"result":' + raw + '}');
  assert.equal(core.normalizeRaw(raw).raw, raw, 'normalizing is idempotent');

  const s = core.schema();
  assert.equal(s.name, 'ask_user_question');
  assert.equal(typeof s.description, 'string');
  assert.equal(typeof s.parameters, 'object');

  const p = core.present(raw);
  assert.equal(typeof p.text, 'string');
  assert.deepEqual([...p.order].sort(), [0, 1, 2, 3]);

  const a = core.resolve(raw, '2');
  assert.equal(a.answer, n.options[p.order[1]].value);
  assert.equal(a.selected.index, p.order[1]);
  assert.equal(typeof a[RAW], 'string');
  assert.deepEqual(JSON.parse(answerText(a)), a);
  assert.equal(Object.keys(a).includes(String(RAW)), false, 'RAW is not enumerable');

  const f = core.elicitation(DB_REQUEST);
  assert.equal(f.message, n.question);
  assert.equal(typeof f.requestedSchema, 'object');

  const r = core.elicitationResult(DB_REQUEST, { action: 'accept', content: { choice: 'mongo' } });
  assert.equal(r.answer, 'mongo');
  assert.equal(r.selected.index, 3);

  assert.equal(core.sanitize('  a\u001b[31mred\u001b[0m\rEVIL \u202ex\u202c '), 'ared\nEVIL x');
});

test('helpers throw UserInteractionError (a HarnessError) with name, code and message', () => {
  const cases = [
    [() => core.normalize({ options: [] }), Codes.INVALID_REQUEST],
    [() => core.normalize('{not json'), Codes.INVALID_REQUEST],
    [() => core.present({ question: 'q', options: [{ label: 'a' }, { label: 'A ' }, { label: 'a' }] }), Codes.INVALID_REQUEST],
    [() => core.resolve({ question: 'q', options: [{ label: 'a' }, { label: 'b' }] }, '9'), Codes.INVALID_ANSWER],
    [() => core.elicitationResult(DB_REQUEST, { action: 'decline' }), Codes.ASK_DECLINED],
    [() => core.elicitationResult(DB_REQUEST, { action: 'cancel' }), Codes.ASK_CANCELLED],
  ];
  for (const [fn, code] of cases) {
    let err;
    try {
      fn();
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof UserInteractionError, `${code}: ${err}`);
    assert.ok(err instanceof HarnessError);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'UserInteractionError');
    assert.equal(err.code, code);
    assert.ok(err.message.length > 0);
    assert.deepEqual(Object.keys(err.toJSON()), ['name', 'code', 'message']);
    assert.ok(isUserInteractionError(err, code));
  }
});

test('the WASI shim implements every import the module has', () => {
  const known = new Set([
    'args_get', 'args_sizes_get', 'environ_get', 'environ_sizes_get', 'clock_res_get', 'clock_time_get', 'random_get',
    'fd_write', 'fd_fdstat_get', 'fd_prestat_get', 'fd_prestat_dir_name', 'fd_close', 'fd_read', 'sched_yield',
    'proc_exit', 'poll_oneoff',
  ]);
  for (const imp of WebAssembly.Module.imports(core.module)) {
    assert.equal(imp.module, 'wasi_snapshot_preview1', `unexpected import module ${imp.module}`);
    assert.ok(known.has(imp.name), `WASI import ${imp.name} falls back to ENOSYS`);
  }
});

test('loading and calling prints nothing (no ExperimentalWarning, no debug noise)', () => {
  const script = `
    import { load } from '@askcore/askcore';
    const c = await load();
    c.handle('{"op":"schema"}'); c.handle('garbage');
    process.stdout.write('done');`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: hostjsDir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'done');
  assert.equal(r.stderr, '');
});

void rejectsWith;
