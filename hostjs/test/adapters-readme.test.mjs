// The README's adapter examples (the ```ts blocks of its "Adapters"
// section), as a user's project would have them: a fresh TypeScript project
// (strict, module nodenext, no skipLibCheck) whose node_modules holds this
// package as npm packs it and the SDKs, type-checked and compiled with tsc, then run
// against stand-ins: the AI SDK's MockLanguageModelV3 as `model`, an MCP
// client that starts the server over stdio, a local stand-in for the
// OpenAI API (OPENAI_BASE_URL). A person types on stdin where the example
// uses the readline provider. Also type-checks the adapters' declarations
// (test/tsconfig.adapters.json, with test/adapters-types.ts) and their JS
// against its JSDoc (test/tsconfig.adapters-js.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync, readdirSync, symlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { load, answerText } from '@askcore/askcore';
import { hostjsDir, DB_REQUEST } from './helpers.mjs';

const core = await load();
const MODEL_TEXT = JSON.stringify(DB_REQUEST);
const strictSupported = JSON.stringify(/** @type {any} */ (core.schema)({ strict: true })) !== JSON.stringify(core.schema());
const NO_STRICT = 'skipped: this core writes no strict schema yet (op schema with "strict": true); the example is type-checked all the same';
const tsc = join(hostjsDir, 'node_modules', '.bin', 'tsc');

const readme = readFileSync(join(hostjsDir, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('\n## Adapters\n')).replace(/\n## (?!#)[\s\S]*$/, (m) => (m.startsWith('\n## Adapters') ? m : ''));
const blocks = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

/** The one block holding `marker`. */
function block(marker) {
  const found = blocks.filter((b) => b.includes(marker));
  assert.equal(found.length, 1, `one Adapters block with ${marker}`);
  return found[0];
}

/** Names the examples leave to the reader, declared for tsc; the runs supply them. */
const DECLARED = {
  aiSdk: "declare const model: import('@ai-sdk/provider').LanguageModelV3;\n",
};

const examples = {
  aiSdk: () => DECLARED.aiSdk + block("from '@askcore/askcore/ai-sdk'"),
  mcp: () => block('StdioServerTransport'),
  chat: () => block('chat.completions.create'),
  responses: () => block('responses.create'),
};

/**
 * A project directory whose node_modules holds this package as `npm pack`
 * packs it (so a file missing from "files" fails here) and links every
 * dependency installed here (the SDKs).
 */
function project() {
  const dir = mkdtempSync(join(tmpdir(), 'askcore-readme-'));
  const nm = join(dir, 'node_modules');
  const pkg = join(nm, '@askcore', 'askcore');
  mkdirSync(pkg, { recursive: true });
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: hostjsDir, encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stderr);
  const tarball = join(dir, packed.stdout.trim().split('\n').at(-1));
  const untar = spawnSync('tar', ['-xzf', tarball, '-C', pkg, '--strip-components=1'], { encoding: 'utf8' });
  assert.equal(untar.status, 0, untar.stderr);
  for (const name of readdirSync(join(hostjsDir, 'node_modules'))) {
    if (name.startsWith('.')) continue;
    symlinkSync(join(hostjsDir, 'node_modules', name), join(nm, name), 'dir');
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme-examples', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2023', 'dom'],
        types: ['node'],
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        rootDir: 'src',
      },
      include: ['src/*.ts'],
    }),
  );
  mkdirSync(join(dir, 'src'));
  return dir;
}

const dir = project();
test.after(() => rmSync(dir, { recursive: true, force: true }));

let compiled;
/** Writes every example to src/, runs tsc once; resolves to its result. */
function compile() {
  if (!compiled) {
    for (const [name, code] of Object.entries(examples)) writeFileSync(join(dir, 'src', name + '.ts'), code());
    compiled = spawnSync(tsc, ['-p', dir], { cwd: dir, encoding: 'utf8' });
  }
  return compiled;
}

/** Runs out/<name>.js with `stdin` and `env`; resolves to {status, stdout, stderr}. */
function run(name, { stdin = '', env = {}, preload } = {}) {
  const args = [...(preload ? ['--import', pathToFileURL(preload).href] : []), join(dir, 'out', name + '.js')];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

test('README Adapters: has an example per adapter', () => {
  for (const make of Object.values(examples)) make();
  assert.equal(blocks.length, Object.keys(examples).length);
});

test('README Adapters: the examples type-check in a strict TypeScript project', () => {
  const r = compile();
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('the adapters\' declarations type-check in strict mode, and their JS against its JSDoc', () => {
  for (const config of ['tsconfig.adapters.json', 'tsconfig.adapters-js.json']) {
    const r = spawnSync(tsc, ['-p', join(hostjsDir, 'test', config)], { cwd: hostjsDir, encoding: 'utf8' });
    assert.equal(r.status, 0, config + '\n' + r.stdout + r.stderr);
  }
});

test('README Adapters: the AI SDK example answers the model\'s call with what the person typed', async () => {
  assert.equal(compile().status, 0);
  const preload = join(dir, 'model.mjs');
  writeFileSync(
    preload,
    `import { MockLanguageModelV3 } from 'ai/test';
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let n = 0;
globalThis.model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    if (n++ === 0) return { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'ask_user_question', input: ${JSON.stringify(MODEL_TEXT)} }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
    process.stderr.write('TOOL ' + JSON.stringify(prompt.at(-1).content[0].output) + '\\n');
    return { content: [{ type: 'text', text: 'All set.' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
  },
});
`,
  );
  const r = await run('aiSdk', { stdin: '3\n', preload });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Which database should the service use\?/);
  assert.match(r.stdout, /All set\.\n$/);
  assert.equal(r.stderr, 'TOOL ' + JSON.stringify({ type: 'text', value: answerText(core.resolveAll(MODEL_TEXT, ['3'])) }) + '\n');
});

test('README Adapters: the MCP example is a stdio server that asks through the client\'s form', async () => {
  assert.equal(compile().status, 0);
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(dir, 'out', 'mcp.js')], cwd: dir, stderr: 'pipe' });
  const client = new Client({ name: 'readme-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const reply = { action: 'accept', content: { choice: 'sqlite' } };
  let form;
  client.setRequestHandler(ElicitRequestSchema, (req) => ((form = req.params), reply));
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['ask_user_question']);
    const result = await client.callTool({ name: 'ask_user_question', arguments: DB_REQUEST });
    assert.equal(form.message, core.elicitation(MODEL_TEXT).message);
    assert.equal(result.content[0].text, answerText(core.elicitationResult(MODEL_TEXT, reply)));
  } finally {
    await client.close();
  }
});

/** A stand-in for the OpenAI API: the first request gets a call of ask_user_question, the second the final message. */
async function fakeOpenAI() {
  const requests = [];
  const server = createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8').on('data', (d) => (data += d));
    req.on('end', () => {
      const body = JSON.parse(data);
      requests.push({ path: req.url, body });
      const first = requests.length === 1;
      let out;
      if (req.url === '/v1/chat/completions') {
        const message = first
          ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ask_user_question', arguments: MODEL_TEXT } }] }
          : { role: 'assistant', content: 'All set.', refusal: null };
        out = { id: 'c', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message, finish_reason: first ? 'tool_calls' : 'stop', logprobs: null }] };
      } else {
        const output = first
          ? [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'ask_user_question', arguments: MODEL_TEXT, status: 'completed' }]
          : [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'All set.', annotations: [] }] }];
        out = { id: first ? 'resp_1' : 'resp_2', object: 'response', created_at: 1, status: 'completed', model: body.model, output, tools: [], error: null, incomplete_details: null };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(out));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }, requests, close: () => new Promise((r) => server.close(r)) };
}

test('README Adapters: the Chat Completions example sends the core\'s answer as the tool message', async () => {
  assert.equal(compile().status, 0);
  const api = await fakeOpenAI();
  try {
    const r = await run('chat', { stdin: '2\n', env: api.env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /All set\.\n$/);
    assert.equal(api.requests.length, 2);
    assert.deepEqual(api.requests[1].body.messages.at(-1), { role: 'tool', tool_call_id: 'call_1', content: answerText(core.resolveAll(MODEL_TEXT, ['2'])) });
  } finally {
    await api.close();
  }
});

test('README Adapters: the strict Responses example sends the core\'s answer as the function call output', { skip: strictSupported ? false : NO_STRICT }, async () => {
  assert.equal(compile().status, 0);
  const api = await fakeOpenAI();
  try {
    const r = await run('responses', { stdin: '4\n', env: api.env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /All set\.\n$/);
    assert.equal(api.requests[0].body.tools[0].strict, true);
    assert.deepEqual(api.requests[1].body.input, [{ type: 'function_call_output', call_id: 'call_1', output: answerText(core.resolveAll(MODEL_TEXT, ['4'])) }]);
  } finally {
    await api.close();
  }
});
