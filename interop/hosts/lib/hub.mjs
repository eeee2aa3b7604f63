// A real askcore-hub for the host tests: bin/askcore-hub serve on a fresh
// SQLite file and a free port on 127.0.0.1, an agent added and a person
// signed in with the CLI's one-time link, as people do; the person answers
// in the inbox through its own HTTP endpoints (the inbox page's requests:
// its cookie, Origin, CSRF header).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './hosts.mjs';

export const hubBin = process.env.ASKCORE_HUB_BIN || join(repoRoot, 'bin/askcore-hub');

// hubMissing says why no hub can run here, or ''.
export function hubMissing() {
  return existsSync(hubBin) ? '' : `${hubBin} is missing (run make build)`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// startHub serves a hub until stop(); agent(name) adds an agent of the
// person "ada" and returns its token; signin() signs ada in.
export async function startHub() {
  const dir = mkdtempSync(join(tmpdir(), 'askcore-hosts-hub-'));
  const db = join(dir, 'hub.db');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { PATH: process.env.PATH, HOME: dir, USER: 'ada', XDG_DATA_HOME: dir };
  const cli = (...args) => execFileSync(hubBin, [...args, '--db', db], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const proc = spawn(hubBin, ['serve', '--db', db, '--addr', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => (log += d));
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  for (let i = 0; ; i++) {
    if (log.includes('listening on')) break;
    if (proc.exitCode !== null || i > 600) throw new Error(`askcore-hub serve did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  cli('person', 'add', 'ada');
  return {
    url,
    dir,
    log: () => log,
    agent(name) {
      return cli('agent', 'add', name, '--person', 'ada');
    },
    async signin() {
      const link = new URL(cli('login', '--person', 'ada', '--url', url).split('\n').pop());
      const token = link.searchParams.get('token');
      const res = await fetch(`${url}/signin`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ token }).toString(),
      });
      if (res.status !== 303) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
      const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const page = await (await fetch(`${url}/`, { headers: { cookie, 'sec-fetch-site': 'same-origin' } })).text();
      const csrf = /<meta name="askcore-csrf" content="([A-Za-z0-9_-]+)">/.exec(page)?.[1];
      if (!csrf) throw new Error('no CSRF token on the inbox page');
      return new Inbox(url, cookie, csrf);
    },
    async stop() {
      proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Inbox is a signed-in inbox page.
class Inbox {
  constructor(url, cookie, csrf) {
    Object.assign(this, { url, cookie, csrf });
  }

  // pending waits for a pending ask (the inbox's event stream: its first
  // snapshot, then each ask added) and returns it: {id, agent, call, ...}.
  async pending({ within = 120_000 } = {}) {
    const end = Date.now() + within;
    for (;;) {
      // The hub ends a stream after its write timeout; a page reconnects.
      const item = await this.#pendingOnce(end - Date.now());
      if (item) return item;
      if (Date.now() >= end) throw new Error(`no pending ask in the inbox within ${within} ms`);
    }
  }

  async #pendingOnce(within) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), within);
    try {
      const res = await fetch(`${this.url}/inbox/events`, { headers: { cookie: this.cookie, 'sec-fetch-site': 'same-origin' }, signal: ctl.signal });
      const dec = new TextDecoder();
      let buf = '';
      for await (const chunk of res.body) {
        buf += dec.decode(chunk, { stream: true });
        let end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (name === 'pending') {
            const items = JSON.parse(data).items || [];
            if (items.length) return items[0];
          } else if (name === 'add') {
            return JSON.parse(data);
          }
        }
      }
      return null;
    } catch (err) {
      if (ctl.signal.aborted || err?.message === 'terminated') return null;
      throw err;
    } finally {
      clearTimeout(timer);
      ctl.abort();
    }
  }

  // reply answers ask id as the inbox page does; returns its verdict.
  async reply(id, reply) {
    const res = await fetch(`${this.url}/inbox/reply`, {
      method: 'POST',
      headers: {
        cookie: this.cookie,
        origin: this.url,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json',
        'x-askcore-csrf': this.csrf,
      },
      body: JSON.stringify({ id, reply }),
    });
    const verdict = await res.json();
    if (res.status !== 200) throw new Error(`inbox reply: ${res.status} ${JSON.stringify(verdict)}`);
    return verdict;
  }
}

// useRemote points a run's host (set up by hosts.mjs's setup) at the hub's
// /mcp instead of a local askcore-mcp: the server keeps its name
// (askcore), the agent's token travels as a bearer token. codex:
// toolTimeoutSec sets the host's own limit on a call.
export function useRemote(run, hub, token, { toolTimeoutSec } = {}) {
  const endpoint = `${hub.url}/mcp`;
  switch (run.host) {
    case 'claude': {
      const file = join(run.home, 'mcp.json');
      writeFileSync(file, JSON.stringify({ mcpServers: { askcore: { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${token}` } } } }, null, 2));
      return;
    }
    case 'codex': {
      const file = join(run.env.CODEX_HOME, 'config.toml');
      const lines = readFileSync(file, 'utf8').split('\n');
      const start = lines.indexOf('[mcp_servers.askcore]');
      let end = lines.findIndex((l, i) => i > start && l.startsWith('['));
      if (end < 0) end = lines.length;
      const server = [
        '[mcp_servers.askcore]',
        `url = ${JSON.stringify(endpoint)}`,
        'bearer_token_env_var = "ASKCORE_HUB_TOKEN"',
        'default_tools_approval_mode = "approve"',
        'required = true',
        toolTimeoutSec ? `tool_timeout_sec = ${toolTimeoutSec}` : '',
        '',
      ];
      lines.splice(start, end - start, ...server);
      writeFileSync(file, lines.join('\n'));
      run.env.ASKCORE_HUB_TOKEN = token;
      return;
    }
    case 'gemini': {
      const file = join(run.home, '.gemini', 'settings.json');
      const settings = JSON.parse(readFileSync(file, 'utf8'));
      settings.mcpServers = { askcore: { httpUrl: endpoint, headers: { Authorization: `Bearer ${token}` }, trust: true } };
      writeFileSync(file, JSON.stringify(settings, null, 2));
      return;
    }
  }
  throw new Error(`useRemote: ${run.host} is not set up for a remote server here`);
}
