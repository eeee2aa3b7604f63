// Real hosts reaching their person through a real askcore-hub
// (bin/askcore-hub serve, SQLite): the hub's remote MCP endpoint (/mcp,
// the agent's bearer token) and askcore-mcp --hub, each in a host's
// non-interactive mode (claude -p, codex exec) that cannot show a form.
// The person answers in the inbox (its HTTP endpoints, as the inbox page
// sends them); the model must receive the core's answer for that reply,
// byte for byte, inside the host's known wrapping.
//
//   node --test hub.test.mjs
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { load, answerText } from '../../hostjs/node.js';
import { HOSTS, missing, runExec, setup } from './lib/hosts.mjs';
import { hubMissing, startHub, useRemote } from './lib/hub.mjs';
import { unwrap } from './lib/record.mjs';

const QUESTION = {
  header: 'Database',
  question: 'Which database should the billing service use?',
  options: [
    { label: 'PostgreSQL', value: 'postgres', description: 'Relational; runs in the existing cluster.', recommended: true },
    { label: 'SQLite', value: 'sqlite', description: 'One file, no server.' },
  ],
};

// The person's reply in the inbox: the second option, with a note.
const PICK = { options: [1], text: '', notes: 'one file is enough for now' };

// want is the tool result the core writes for PICK (the wasm core: the
// same bytes as the hub's native one, by the conformance corpus).
const want = (async () => {
  const core = await load();
  return answerText(core.resolveAll(core.normalize(JSON.stringify(QUESTION)), [PICK]));
})();

function skipped(t, host) {
  const why = missing(host) || hubMissing();
  if (!why) return false;
  console.log(`SKIP: ${HOSTS[host].name}: ${why}`);
  t.skip(why);
  return true;
}

// answered runs host with the hub set up by configure(run, hub, token),
// answers in the inbox after `delay` ms once the ask is there, and returns
// the host's exit, what the model received and the ask as the inbox had it.
async function answered(host, configure, { delay = 0, within = 120_000 } = {}) {
  const hub = await startHub();
  let run;
  try {
    const token = hub.agent(`${host}-agent`);
    const inbox = await hub.signin();
    run = await configure(hub, token);
    const exit = runExec(run, { within });
    const item = await inbox.pending();
    const shownAt = Date.now();
    if (delay) await new Promise((r) => setTimeout(r, delay));
    await inbox.reply(item.id, { picks: [PICK] });
    const ex = await exit;
    return { exit: ex, item, result: run.model.result, askedAt: run.model.askedAt, shownAt, hubLog: hub.log(), mcp: run.mcp() };
  } finally {
    await run?.cleanup();
    await hub.stop();
  }
}

function assertAnswer(host, got, expected) {
  assert.ok(got.result, `the model received no tool result (exit ${JSON.stringify(got.exit)}; hub: ${got.hubLog}; mcp: ${JSON.stringify(got.mcp).slice(0, 4000)})`);
  const { inner } = unwrap(host, got.result.text);
  assert.equal(inner, expected, 'the model receives the core\'s answer for the person\'s reply, byte for byte');
}

const remote = (host, opts = {}, again) => async (hub, token) => {
  const run = await setup(host, { args: QUESTION });
  useRemote(run, hub, token, opts);
  run.model.again = again;
  return run;
};

// Codex's tool_timeout_sec ends a call that waits longer, progress or not.
const CODEX_TIMEOUT = /timed out awaiting tools\/call/;

// local runs askcore-mcp --hub under the host, the token in a file: Codex
// starts MCP servers with a cleared environment (ASKCORE_HUB_TOKEN would
// need env_vars = ["ASKCORE_HUB_TOKEN"] in the server's table).
const local = (host, extraEnv = {}) => async (hub, token) => {
  const file = join(hub.dir, 'agent-token');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return setup(host, { args: QUESTION, mcpArgs: ['--hub', hub.url, '--hub-token-file', file], extraEnv });
};

describe('real hosts through askcore-hub', { concurrency: Number(process.env.ASKCORE_HOSTS_CONCURRENCY || 2) }, () => {
  test('claude -p, the hub\'s /mcp: waits for the inbox; the model gets the person\'s answer', async (t) => {
    if (skipped(t, 'claude')) return;
    const got = await answered('claude', remote('claude'));
    assert.match(got.item.agent, /claude-agent/);
    assertAnswer('claude', got, await want);
  });

  test('codex exec, the hub\'s /mcp: waits for the inbox; the model gets the person\'s answer', async (t) => {
    if (skipped(t, 'codex')) return;
    const got = await answered('codex', remote('codex'));
    assertAnswer('codex', got, await want);
  });

  test('gemini -p, the hub\'s /mcp: waits for the inbox; the model gets the person\'s answer', async (t) => {
    if (skipped(t, 'gemini')) return;
    const got = await answered('gemini', remote('gemini'));
    assertAnswer('gemini', got, await want);
  });

  test('codex exec, the hub\'s /mcp, tool_timeout_sec = 3, the person answers after 8 s: the model\'s call made again gets the answer', async (t) => {
    if (skipped(t, 'codex')) return;
    let run;
    const got = await answered('codex', async (hub, token) => (run = await remote('codex', { toolTimeoutSec: 3 }, (text) => CODEX_TIMEOUT.test(text))(hub, token)), { delay: 8_000 });
    // How soon the inbox showed the ask is the machine's load, not the
    // hosts' (over 8 s at a load of 20): what matters is that the answer
    // came after Codex gave the first call up.
    assert.ok(run.model.earlier?.length >= 1, 'the first call timed out in Codex');
    assert.match(run.model.earlier[0], CODEX_TIMEOUT);
    assert.equal(got.hubLog.match(/ask created/g)?.length, 1, 'one question in the inbox, however often it was called');
    assertAnswer('codex', got, await want);
  });

  // claude -p's cancel of the form is not the person's whatever its time
  // (beside two CPU burners its retried call came after 250 ms): Claude Code
  // tells askcore-mcp it runs in print mode (CLAUDE_CODE_ENTRYPOINT), the
  // form drops out and the inbox keeps the question.
  test('claude -p, askcore-mcp --hub (2026-07-28): the form drops out, the inbox answers', async (t) => {
    if (skipped(t, 'claude')) return;
    const got = await answered('claude', local('claude'), { within: 30_000 });
    assertAnswer('claude', got, await want);
  });

  test('claude -p, askcore-mcp --hub (MCP_PROTOCOL_NEGOTIATION=legacy): the form drops out, the inbox answers', async (t) => {
    if (skipped(t, 'claude')) return;
    const got = await answered('claude', local('claude', { MCP_PROTOCOL_NEGOTIATION: 'legacy' }));
    assertAnswer('claude', got, await want);
  });

  test('codex exec, askcore-mcp --hub: the form drops out, the inbox answers', async (t) => {
    if (skipped(t, 'codex')) return;
    const got = await answered('codex', local('codex'));
    assertAnswer('codex', got, await want);
  });
});
