// The four hosts, each set up the way a new user would (from npm, pinned
// in package-lock.json), isolated: a fresh HOME and config directory per
// run, onboarding and trust pre-accepted, a fake model server on
// 127.0.0.1, and askcore-mcp behind the logging proxy (mcp-proxy.mjs).
//
// runExec runs a host's non-interactive mode (claude -p, codex exec,
// gemini -p, opencode run); tmux.mjs drives the TUIs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModel } from './fake-model.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const suiteDir = resolve(here, '..');
export const repoRoot = resolve(suiteDir, '../..');
export const askcoreBin = process.env.ASKCORE_MCP_BIN || join(repoRoot, 'bin/askcore-mcp');
export const binDir = join(suiteDir, 'node_modules/.bin');
const proxy = join(here, 'mcp-proxy.mjs');

export const RECORD = process.env.ASKCORE_HOSTS_RECORD === '1';
export const PROMPT = 'Ask me which database to use.';

// The hosts: the npm package, its command, the API its fake model speaks.
export const HOSTS = {
  claude: { name: 'Claude Code', pkg: '@anthropic-ai/claude-code', bin: 'claude', api: 'anthropic' },
  codex: { name: 'Codex', pkg: '@openai/codex', bin: 'codex', api: 'responses' },
  gemini: { name: 'Gemini CLI', pkg: '@google/gemini-cli', bin: 'gemini', api: 'gemini' },
  opencode: { name: 'opencode', pkg: 'opencode-ai', bin: 'opencode', api: 'chat' },
};

// missing says why a host cannot run here (for a clear SKIP), or ''.
export function missing(host) {
  if (!existsSync(askcoreBin)) return `${askcoreBin} is missing (run make build)`;
  if (!existsSync(join(binDir, HOSTS[host].bin))) return `${HOSTS[host].pkg} is not installed (cd interop/hosts && npm ci)`;
  return '';
}

// The environment every host gets: nothing of the user's, no desktop (so no
// browser can open and nobody is reachable but through the host), and any
// request that is not for 127.0.0.1 sent to a closed port.
function baseEnv(home) {
  const env = {
    PATH: `${binDir}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    USER: process.env.USER || 'root',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    TMPDIR: join(home, 'tmp'),
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ASKCORE_BROWSER: 'none',
    ASKCORE_LOG: 'info',
  };
  mkdirSync(env.TMPDIR, { recursive: true });
  return env;
}

// setup prepares one isolated run of host: the fake model, the directories,
// the host's configuration. mcpArgs are askcore-mcp's flags; extraEnv is
// added to the host's environment (e.g. MCP_PROTOCOL_NEGOTIATION).
// options are the host's configuration switches the tests flip to show a
// trap (codex: {approve: false}; gemini: {trust: false}). hostArgs are
// added to the host's command line; subagent makes the fake model hand the
// ask to a sub-agent (fake-model.mjs).
export async function setup(host, { args, mcpArgs = [], extraEnv = {}, options = {}, hostArgs = [], subagent = false }) {
  const root = mkdtempSync(join(tmpdir(), `askcore-hosts-${host}-`));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const mcpLog = join(root, 'mcp.jsonl');
  const model = await startFakeModel({ api: HOSTS[host].api, args, subagent });
  const server = { command: process.execPath, args: [proxy, mcpLog, '--', askcoreBin, ...mcpArgs] };
  const conf = configure[host]({ root, home, cwd, model, server, options });
  const env = { ...baseEnv(home), ...conf.env, ...extraEnv };
  return {
    host,
    root,
    home,
    cwd,
    env,
    hostArgs: [...(conf.args || []), ...hostArgs],
    model,
    mcpLog,
    // mcp: the proxy's log so far, parsed.
    mcp() {
      if (!existsSync(mcpLog)) return [];
      return readFileSync(mcpLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    },
    async cleanup({ keep = false } = {}) {
      await model.close();
      await endLeftovers(root);
      if (!keep) rmSync(root, { recursive: true, force: true });
    },
  };
}

// leftovers are the processes still running from a run's directory (its
// command line names it): Codex's TUI keeps its MCP servers in a background
// `codex app-server` that outlives the TUI, copied into CODEX_HOME.
function leftovers(root) {
  const pids = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(root)) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

// endLeftovers ends them: SIGTERM, then SIGKILL for what is left after 2 s.
async function endLeftovers(root) {
  const signal = (pids, sig) => pids.forEach((p) => { try { process.kill(p, sig); } catch { /* gone */ } });
  let pids = leftovers(root);
  signal(pids, 'SIGTERM');
  for (let i = 0; i < 20 && pids.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    pids = leftovers(root);
  }
  signal(pids, 'SIGKILL');
}

const configure = {
  claude({ home, cwd, model, server }) {
    const config = join(home, '.claude');
    mkdirSync(config, { recursive: true });
    const state = {
      hasCompletedOnboarding: true,
      lastOnboardingVersion: '2.1.328',
      theme: 'dark',
      numStartups: 1,
      autoUpdates: false,
      projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
    };
    writeFileSync(join(config, '.claude.json'), JSON.stringify(state, null, 2));
    writeFileSync(join(config, 'settings.json'), JSON.stringify({ autoUpdates: false, theme: 'dark' }, null, 2));
    const mcpConfig = join(home, 'mcp.json');
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { askcore: { type: 'stdio', ...server } } }, null, 2));
    return {
      args: ['--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', 'mcp__askcore__ask_user_question'],
      env: {
        CLAUDE_CONFIG_DIR: config,
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_AUTH_TOKEN: 'fake-token',
        ANTHROPIC_MODEL: 'claude-sonnet-4-5',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
    };
  },
  codex({ home, cwd, model, server, options }) {
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    const q = JSON.stringify;
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "fake-model"',
        'model_provider = "fake"',
        'check_for_update_on_startup = false',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = ${q(model.url + '/v1')}`,
        'wire_api = "responses"',
        '',
        '[mcp_servers.askcore]',
        `command = ${q(server.command)}`,
        `args = ${q(server.args)}`,
        // Without it, codex exec refuses the call ("requires approval, but
        // approval policy is never") and the TUI asks before every call.
        options.approve === false ? '' : 'default_tools_approval_mode = "approve"',
        // Codex starts stdio servers without waiting for them: without it
        // the first turn can go out before the tool is listed.
        'required = true',
        '',
        `[projects.${q(cwd)}]`,
        'trust_level = "trusted"',
        '',
      ].join('\n'),
    );
    return { env: { CODEX_HOME: codexHome } };
  },
  gemini({ home, model, server, options }) {
    const dir = join(home, '.gemini');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify(
        {
          // Without trust, gemini -p leaves the tool out of the model's declarations.
          mcpServers: { askcore: { ...server, trust: options.trust !== false } },
          security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          ui: { hideTips: true, hideBanner: true },
          ide: { enabled: false },
        },
        null,
        2,
      ),
    );
    return { env: { GEMINI_API_KEY: 'fake-key', GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_CLI_NO_RELAUNCH: 'true' } };
  },
  opencode({ cwd, model, server }) {
    writeFileSync(
      join(cwd, 'opencode.json'),
      JSON.stringify(
        {
          $schema: 'https://opencode.ai/config.json',
          provider: {
            fake: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Fake',
              options: { baseURL: model.url + '/v1', apiKey: 'fake-key' },
              models: { 'fake-model': { name: 'Fake model', tool_call: true } },
            },
          },
          model: 'fake/fake-model',
          small_model: 'fake/fake-model',
          mcp: { askcore: { type: 'local', command: [server.command, ...server.args], enabled: true } },
          autoupdate: false,
          share: 'disabled',
        },
        null,
        2,
      ),
    );
    return {
      env: {
        OPENCODE_DISABLE_AUTOUPDATE: 'true',
        OPENCODE_DISABLE_MODELS_FETCH: 'true',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
        OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
        OPENCODE_DISABLE_SHARE: 'true',
      },
    };
  },
};

// execCommand is the host's non-interactive command line for the prompt.
export function execCommand(run, prompt = PROMPT) {
  switch (run.host) {
    case 'claude':
      return ['claude', ['-p', prompt, ...run.hostArgs]];
    case 'codex':
      return ['codex', ['exec', '--skip-git-repo-check', prompt]];
    case 'gemini':
      return ['gemini', ['-p', prompt]];
    case 'opencode':
      return ['opencode', ['run', prompt]];
  }
  throw new Error(`unknown host ${run.host}`);
}

// tuiCommand is the host's interactive command line.
export function tuiCommand(run) {
  return [HOSTS[run.host].bin, ...run.hostArgs];
}

// runExec runs the host's non-interactive mode until it exits. A host that
// is still running `within` ms after the model's tool call went out (or
// that never made the call within `startup` ms) is killed: a run that waits
// unseen is the finding, and the suite must stay fast. It resolves with what
// happened; it never rejects for the host's sake.
export async function runExec(run, { within = 30_000, startup = 150_000, prompt } = {}) {
  const [cmd, args] = execCommand(run, prompt);
  const started = Date.now();
  const child = spawn(join(binDir, cmd), [...args], { cwd: run.cwd, env: run.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let killed = '';
  const kill = (why) => {
    if (killed) return;
    killed = why;
    const signal = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    signal('SIGTERM');
    setTimeout(() => signal('SIGKILL'), 3000).unref();
  };
  const watch = setInterval(() => {
    const now = Date.now();
    if (run.model.askedAt && now - run.model.askedAt > within) kill(`still running ${within} ms after the tool call`);
    else if (!run.model.askedAt && now - started > startup) kill(`no tool call within ${startup} ms`);
  }, 100);
  const { code, signal } = await new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  clearInterval(watch);
  // The host is gone; anything of its process group that is left is ours to end.
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // nothing left
  }
  return { code, signal, killed, stdout, stderr, ms: Date.now() - started, started };
}
