// Runs in Chromium: loads the package through its browser entry point (the
// bundled module is fetched and compiled while streaming), then runs the whole
// conformance corpus, the seam corpus (every case but the terminal ones,
// which need Node's readline) and a few API checks, and leaves the results
// on window.
import * as api from '@askcore/askcore';
import { runSeamCase } from '/seam-runner.js';

const { load, UserInteraction, UserInteractionError, HarnessError } = api;

const utf8 = new TextDecoder();

/** @param {string} path */
async function bytes(path) {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** @param {Uint8Array} a @param {Uint8Array} b */
function same(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function main() {
  const t0 = performance.now();
  const core = await load();
  const loadMs = performance.now() - t0;

  const names = await (await fetch('/corpus/index.json')).json();
  const results = [];
  for (const name of names) {
    const [input, want] = await Promise.all([bytes(`/corpus/${encodeURIComponent(name)}.in`), bytes(`/corpus/${encodeURIComponent(name)}.out`)]);
    const got = core.handleBytes(input);
    const okBytes = same(got, want);
    const okString = core.handle(input) === utf8.decode(want);
    results.push({ name, ok: okBytes && okString, okBytes, okString, got: okBytes ? undefined : utf8.decode(got), want: okBytes ? undefined : utf8.decode(want) });
  }

  // The seam corpus: the model's argument text through the JS seam, the
  // tool result byte for byte as Go's seam gives it.
  const seam = [];
  for (const { name, c, want } of await (await fetch('/seam/index.json')).json()) {
    let got;
    try {
      got = await runSeamCase(api, core, c);
    } catch (e) {
      got = `threw ${String((e && e.stack) || e)}`;
    }
    seam.push({ name, ok: got === want, got: got === want ? undefined : got, want: got === want ? undefined : want });
  }

  // The other sources, and the helpers' errors, in a real browser.
  const checks = {};
  const schema = core.handle('{"op":"schema"}');
  checks.fromResponse = (await load(await fetch('/pkg/askcore.wasm'))).handle('{"op":"schema"}') === schema;
  checks.fromBytes = (await load(await bytes('/pkg/askcore.wasm'))).handle('{"op":"schema"}') === schema;
  checks.cachedModule = (await load()).module === core.module;
  try {
    core.normalize({ options: [] });
    checks.helperThrows = false;
  } catch (e) {
    checks.helperThrows = e instanceof UserInteractionError && e instanceof HarnessError && e.code === 'INVALID_REQUEST';
  }
  const ui = new UserInteraction(core);
  try {
    await ui.ask({ question: 'Anyone?' });
    checks.noProvider = false;
  } catch (e) {
    checks.noProvider = e.code === 'NO_PROVIDER';
  }
  // The provider hands back what the person typed; the seam has the core
  // resolve it. A hand-made answer object is refused (not_a_reply).
  let reply = () => ({ lines: ['browser answer'] });
  ui.register(() => reply());
  checks.seam = (await ui.ask({ question: 'Anyone?', allowCustom: false })).answer === 'browser answer';
  reply = () => ({ answer: 'browser answer' });
  try {
    await ui.ask({ question: 'Anyone?' });
    checks.handMadeRefused = false;
  } catch (e) {
    checks.handMadeRefused = e.raw === core.fail({ situation: 'not_a_reply' }).raw;
  }

  return { loadMs, results, seam, checks };
}

main().then(
  (r) => (window.__askcore = { done: true, ...r }),
  (e) => (window.__askcore = { done: true, error: String((e && e.stack) || e) }),
);
