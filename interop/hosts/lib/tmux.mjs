// A TUI in a real pty: a private tmux server (its own socket), one window
// of 120x40, the host started with exactly the environment given.
// screen() is what the person sees (capture-pane), keys() is what they type.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const COLS = 120;
export const ROWS = 40;

export class Tmux {
  constructor(name) {
    this.socket = `askcore-${name}-${process.pid}-${Date.now()}`;
  }

  tmux(...args) {
    return run('tmux', ['-L', this.socket, ...args], { maxBuffer: 1 << 24 });
  }

  // start runs argv in cwd with env (nothing else of ours leaks in).
  async start(argv, { cwd, env }) {
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    await this.tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'host', '-x', String(COLS), '-y', String(ROWS), '-c', cwd, 'env', '-i', ...envArgs, ...argv);
    await this.tmux('set-option', '-t', 'host', 'remain-on-exit', 'on');
    this.started = Date.now();
  }

  async screen() {
    const { stdout } = await this.tmux('capture-pane', '-p', '-t', 'host');
    return stdout;
  }

  // keys sends tmux key names ("Enter", "Down", "Escape") or literal text
  // ({ text }), in order.
  async keys(...keys) {
    for (const k of keys) {
      if (typeof k === 'string') await this.tmux('send-keys', '-t', 'host', k);
      else await this.tmux('send-keys', '-t', 'host', '-l', k.text);
    }
  }

  // waitFor polls the screen until test(screen) holds (a RegExp or a
  // function), and resolves with that screen; after `within` ms it rejects
  // with the last screen in the message (at once when kill ended the
  // session). Polling is the only way to learn
  // what a TUI drew; the deadline bounds it.
  async waitFor(test, { within = 30_000, what = String(test) } = {}) {
    const ok = typeof test === 'function' ? test : (s) => test.test(s);
    const deadline = Date.now() + within;
    let last = '';
    for (;;) {
      if (this.killed) throw new Error(`tmux: ${what}: the session was ended`);
      last = await this.screen().catch(() => last);
      if (ok(last)) return last;
      if (Date.now() > deadline) {
        const err = new Error(`tmux: ${what} not on screen within ${within} ms; the screen:\n${last}`);
        err.screen = last;
        throw err;
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  async kill() {
    this.killed = true;
    await this.tmux('kill-server').catch(() => {});
  }
}
