// @askcore/askcore/hub against the real askcore-hub binary (built with go
// into a temporary directory; the test skips when go is missing): the JS
// seam asks through the hub, the person replies in the hub's inbox (signed
// in with the link `askcore-hub login` prints, as a browser does), and the
// model gets the core's answer; a replayed tool call attaches to the same
// ask; an abort withdraws it; the operator's deadline is ASK_TIMEOUT; a
// hub that is not up yet is waited for; a wrong token is ASK_FAILED
// quoting the hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, UserInteraction, answerText, errorText } from '@askcore/askcore';
import { createHubProvider } from '@askcore/askcore/hub';
import { PATIENCE, DB_REQUEST, freePort, goBuild, skipWithout } from './helpers.mjs';

const skip = skipWithout('./cmd/askcore-hub');
const opts = { skip, timeout: 4 * PATIENCE };

let core;
let dir;
let bin;
/** @type {Awaited<ReturnType<typeof startHub>>} */
let hub;

before(async () => {
  core = await load();
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'askcore-hubjs-'));
  bin = goBuild('./cmd/askcore-hub', dir);
  hub = await startHub(await freePort());
});

after(async () => {
  await hub?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `askcore-hub serve` on a fresh SQLite file; resolves once it answers. */
async function startHub(port, { wait = true, env: given = undefined } = {}) {
  const base = `http://127.0.0.1:${port}`;
  const env = given ?? { ...process.env, USER: 'ada', ASKCORE_HUB_DB: join(mkdtempSync(join(dir, 'hub-')), 'hub.db') };
  const child = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--engine', 'native'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const h = {
    base,
    env,
    child,
    cli: (...args) => {
      const r = spawnSync(bin, args, { encoding: 'utf8', env, timeout: PATIENCE });
      assert.equal(r.status, 0, `askcore-hub ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
    up: async () => {
      const deadline = Date.now() + PATIENCE;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`askcore-hub serve exited: ${stderr}`);
        try {
          await (await fetch(`${base}/signin`)).arrayBuffer();
          return;
        } catch {
          if (Date.now() > deadline) throw new Error(`askcore-hub serve did not answer: ${stderr}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
  };
  if (wait) await h.up();
  return h;
}

/** An agent's token (askcore-hub agent add NAME). */
function agentToken(h, name, ...flags) {
  const m = /\b(askcore_agent_[A-Za-z0-9_-]{43})\b/.exec(h.cli('agent', 'add', name, ...flags));
  assert.ok(m, 'no agent token printed');
  return m[1];
}

/** The person, signed in to the inbox as a browser is: the link, its form, the page's CSRF token. */
async function person(h) {
  const link = h.cli('login', '--url', h.base).trim();
  const token = new URL(link).searchParams.get('token');
  const res = await fetch(`${h.base}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.base },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
  assert.equal(res.status, 303);
  const cookie = /** @type {string} */ (res.headers.get('set-cookie')).split(';')[0];
  const page = await (await fetch(`${h.base}/`, { headers: { cookie } })).text();
  const csrf = /** @type {RegExpExecArray} */ (/name="askcore-csrf" content="([^"]+)"/.exec(page))[1];
  const headers = { cookie, origin: h.base, 'x-askcore-csrf': csrf, 'content-type': 'application/json' };
  return {
    /** The ids of the pending asks, from the inbox's event stream's first event. */
    async pending() {
      const ctl = new AbortController();
      const r = await fetch(`${h.base}/inbox/events`, { headers: { cookie }, signal: ctl.signal });
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while (!/\n\n/.test(text.replace(/^retry: \d+\n\n/, ''))) text += (await reader.read()).value;
      ctl.abort();
      const data = /event: pending\ndata: (.*)\n/.exec(text)[1];
      return JSON.parse(data).items.map((i) => i.id);
    },
    /** Waits for n pending asks and returns their ids. */
    async waitFor(n) {
      const deadline = Date.now() + PATIENCE;
      for (;;) {
        const ids = await this.pending();
        if (ids.length >= n) return ids;
        assert.ok(Date.now() < deadline, `${ids.length} asks pending, want ${n}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async reply(id, reply) {
      const r = await fetch(`${h.base}/inbox/reply`, { method: 'POST', headers, body: JSON.stringify({ id, reply }) });
      return { status: r.status, body: await r.json() };
    },
  };
}

function interaction(h, token, options) {
  const ui = new UserInteraction(core);
  ui.register(createHubProvider(core, h.base, token, options));
  return ui;
}

const ARGS = JSON.stringify(DB_REQUEST);

test('the person replies in the inbox: the model gets the core\'s answer', opts, async () => {
  const ui = interaction(hub, agentToken(hub, 'builder'));
  const ada = await person(hub);
  const answer = ui.ask(ARGS, { from: { toolCallId: 'call-1', sessionId: 's1' } });
  const [id] = await ada.waitFor(1);
  const r = await ada.reply(id, { picks: [{ options: [1], notes: 'zero setup wins' }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(answerText(await answer), answerText(core.resolveAll(ARGS, [{ options: [1], notes: 'zero setup wins' }])));
});

test('a restarted agent replaying its tool call attaches to the same ask', opts, async () => {
  const token = agentToken(hub, 'restarts');
  const ada = await person(hub);
  const outcome = (/** @type {Promise<unknown>} */ p) => p.then((a) => ({ a }), (e) => ({ e }));
  const first = outcome(interaction(hub, token).ask(ARGS, { from: { toolCallId: 'call-7', sessionId: 's7' } }));
  const [id] = await ada.waitFor(1);
  // The agent restarts: the same tool call, from a new provider.
  const again = outcome(interaction(hub, token).ask(ARGS, { from: { toolCallId: 'call-7', sessionId: 's7' } }));
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(await ada.pending(), [id], 'no second question');
  assert.equal((await ada.reply(id, { decline: true })).status, 200);
  assert.equal((await again).e?.code, 'ASK_DECLINED');
  assert.equal((await first).e?.code, 'ASK_DECLINED');
});

test('an abort withdraws the ask at the hub', opts, async () => {
  const token = agentToken(hub, 'aborts');
  const ada = await person(hub);
  const ctl = new AbortController();
  const asked = interaction(hub, token).ask(ARGS, { signal: ctl.signal, from: { toolCallId: 'call-9' } });
  const [id] = await ada.waitFor(1);
  ctl.abort(new Error('the user pressed Esc in the editor'));
  await assert.rejects(asked, (e) => e.code === 'ASK_ABORTED' && /pressed Esc/.test(e.message));
  const deadline = Date.now() + PATIENCE;
  while ((await ada.pending()).includes(id)) {
    assert.ok(Date.now() < deadline, 'the ask was not withdrawn');
    await new Promise((r) => setTimeout(r, 100));
  }
  const r = await ada.reply(id, { decline: true });
  assert.equal(r.status, 409);
  assert.equal(r.body.state, 'withdrawn');
});

test('the operator\'s deadline for the agent is ASK_TIMEOUT', opts, async () => {
  const ui = interaction(hub, agentToken(hub, 'hurried', '--deadline', '1s'));
  await assert.rejects(ui.ask(ARGS, { from: { toolCallId: 'call-2' } }), (e) => {
    assert.equal(errorText(e), errorText(core.fail({ situation: 'timeout', ms: 1000 })));
    return true;
  });
});

test('a hub that is not up yet is waited for (backoff), then asked', opts, async () => {
  const port = await freePort();
  const later = await startHub(port, { wait: false });
  await later.stop();
  // Agents and people are in the store; the server is down.
  const token = agentToken(later, 'patient');
  const ui = interaction(later, token, { maxBackoffMs: 200 });
  const answer = ui.ask(ARGS, { from: { toolCallId: 'call-3' } });
  await new Promise((r) => setTimeout(r, 500));
  const up = await startHub(port, { wait: true, env: later.env });
  try {
    const ada = await person(up);
    const [id] = await ada.waitFor(1);
    assert.equal((await ada.reply(id, { picks: [{ options: [0] }] })).status, 200);
    assert.equal(answerText(await answer), answerText(core.resolveAll(ARGS, [{ options: [0] }])));
  } finally {
    await up.stop();
  }
});

test('a wrong token is ASK_FAILED quoting the hub', opts, async () => {
  const ui = interaction(hub, 'askcore_agent_' + 'A'.repeat(43));
  await assert.rejects(ui.ask(ARGS, { from: { toolCallId: 'call-4' } }), (e) => {
    assert.equal(e.code, 'ASK_FAILED');
    assert.match(e.message, /the hub refused the ask: UNAUTHORIZED/);
    return true;
  });
});
