#!/usr/bin/env node
// Node figures for `make bench`: load time of the bundled module (compile +
// instantiate + _initialize, each sample in a fresh process so nothing is
// cached), instantiate-only time, and per-call cost of the ops on a typical
// 4-option request. Prints one JSON object on stdout (`--table` for people).
//
//   node bench/bench.mjs [--loads N] [--iters N] [--wasm FILE] [--table]
//
// `ns` is handle(envelope string) -> string: the byte path, comparable to
// native core.Handle. `helper_ns` adds what the typed helper does around it
// (JSON.stringify of the request, JSON.parse of the result). `cpu_ns` is the
// process CPU time per call: steadier than wall time on a busy machine.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const loads = Number(opt('--loads', 9));
const iters = Number(opt('--iters', 5000));
const wasmPath = opt('--wasm', fileURLToPath(new URL('../askcore.wasm', import.meta.url)));
const nodeEntry = new URL('../node.js', import.meta.url).href;

// The typical 4-option request every askcore benchmark uses (the Go
// benchmarks and `make bench` read the same file), so figures compare.
export const REQUEST = JSON.parse(readFileSync(new URL('../../internal/bench/benchdata/request.json', import.meta.url), 'utf8'));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

// One fresh process: time load() from the file (read + compile + instantiate
// + _initialize), then the first call (V8 compiles Go functions lazily).
const child = `
  const t0 = performance.now();
  const { load } = await import(${JSON.stringify(nodeEntry)});
  const t1 = performance.now();
  const core = await load(${wasmPath === fileURLToPath(new URL('../askcore.wasm', import.meta.url)) ? 'undefined' : `(await import('node:fs')).readFileSync(${JSON.stringify(wasmPath)})`});
  const t2 = performance.now();
  core.handle(${JSON.stringify(JSON.stringify({ op: 'normalize', request: REQUEST }))});
  const t3 = performance.now();
  process.stdout.write(JSON.stringify({ import_ms: t1 - t0, load_ms: t2 - t1, first_call_ms: t3 - t2 }));
`;

function freshLoads(n) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error('load child failed: ' + r.stderr);
    samples.push(JSON.parse(r.stdout));
  }
  return samples;
}

/** Median over 5 batches of wall-clock ns per call, and of process CPU ns per call. */
function timeOp(fn) {
  for (let i = 0; i < Math.min(iters, 3000); i++) fn(); // warm up: tier-up, buffers, GC pacing
  const wall = [];
  const cpu = [];
  for (let b = 0; b < 5; b++) {
    const u0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) fn();
    wall.push(Number(process.hrtime.bigint() - t0) / iters);
    const u = process.cpuUsage(u0);
    cpu.push(((u.user + u.system) * 1000) / iters);
  }
  return { ns: round(median(wall), 0), cpu_ns: round(median(cpu), 0) };
}

const { load } = await import(nodeEntry);
const bytes = readFileSync(wasmPath);

const samples = freshLoads(loads);
const core = await load(bytes);

// Instantiate + _initialize only, from the compiled module.
const inst = [];
for (let i = 0; i < 15; i++) {
  const t0 = performance.now();
  await load(core.module);
  inst.push(performance.now() - t0);
}

const { raw } = core.normalizeRaw(REQUEST);
const envs = {
  normalize: JSON.stringify({ op: 'normalize', request: REQUEST }),
  resolve: JSON.stringify({ op: 'resolve', request: REQUEST, input: '2' }),
  elicitation: JSON.stringify({ op: 'elicitation', request: REQUEST }),
  present: JSON.stringify({ op: 'present', request: REQUEST }),
};
for (const [op, env] of Object.entries(envs)) {
  const v = JSON.parse(core.handle(env));
  if (!v.ok) throw new Error(`${op}: ${JSON.stringify(v.error)}`);
}
const helpers = {
  normalize: () => core.normalize(REQUEST),
  resolve: () => core.resolve(REQUEST, '2'),
  elicitation: () => core.elicitation(REQUEST),
  present: () => core.present(REQUEST),
};

const ops = {};
for (const op of Object.keys(envs)) {
  const env = envs[op];
  const h = timeOp(() => core.handle(env));
  ops[op] = { ns: h.ns, cpu_ns: h.cpu_ns, helper_ns: timeOp(helpers[op]).ns };
}
// resolve with the request as normalize wrote it (what the providers send)
const rr = timeOp(() => core.handle('{"op":"resolve","request":' + raw + ',"input":"2"}'));
ops.resolve_normalized_request = { ns: rr.ns, cpu_ns: rr.cpu_ns };

const report = {
  surface: 'node',
  node: process.version,
  module: {
    path: wasmPath,
    bytes: bytes.length,
    gzip_bytes: gzipSync(bytes, { level: 9 }).length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  },
  load_ms: {
    median: round(median(samples.map((s) => s.load_ms)), 2),
    min: round(Math.min(...samples.map((s) => s.load_ms)), 2),
    samples: samples.map((s) => round(s.load_ms, 2)),
    what: 'fresh process: read file + compile + instantiate + _initialize',
  },
  import_ms: round(median(samples.map((s) => s.import_ms)), 2),
  first_call_ms: round(median(samples.map((s) => s.first_call_ms)), 2),
  instantiate_ms: round(median(inst), 2),
  iterations: iters,
  memory_bytes_after: core.memoryBytes,
  ops,
};

if (args.includes('--table')) {
  console.log(`node ${report.node}  module ${report.module.bytes} B (${report.module.gzip_bytes} B gzip)`);
  console.log(`load (fresh process)  ${report.load_ms.median} ms median, ${report.load_ms.min} ms min`);
  console.log(`instantiate+init      ${report.instantiate_ms} ms   first call ${report.first_call_ms} ms`);
  for (const [op, v] of Object.entries(ops)) {
    console.log(`${op.padEnd(28)}${String(v.ns).padStart(8)} ns/op  cpu ${String(v.cpu_ns).padStart(8)} ns/op${v.helper_ns ? `   helper ${v.helper_ns} ns/op` : ''}`);
  }
} else {
  console.log(JSON.stringify(report, null, 2));
}
