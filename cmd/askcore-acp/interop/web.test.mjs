// Interop test, the answer page: the official TypeScript ACP client
// (@agentclientprotocol/sdk), which does NOT advertise form elicitation,
// drives the real askcore-acp binary, and each question is answered on the
// local answer page in real headless Chromium (Debian's chromium driven by
// playwright-core; never a downloaded browser), at the URL the agent
// printed on stderr ("askcore: answer at URL") and sent to the session as
// agent message text. Run by scripts/test-interop.sh acp, after
// interop.test.mjs and previews_notes.test.mjs.
//
// What it checks: the page answers with the mouse and with the keyboard
// alone, the URL in the session's agent message, the tool_call_update's
// rawOutput as the core wrote it, a decline (ASK_DECLINED), two sessions'
// questions on one page at once, and session/cancel withdrawing the
// question from the open page (the page says why, in the core's words).
// Expected bytes come from the core through hostjs (the same askcore.wasm
// the binary and the page run).
//
// ASKCORE_ACP_BIN overrides the binary (default: ../../../bin/askcore-acp);
// ASKCORE_ENGINE, when set, is passed as --engine; ASKCORE_CHROMIUM
// overrides /usr/bin/chromium (the tests skip, saying so, without one).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { load } from "../../../hostjs/node.js";
import { coreText } from "../../../testdata/interop/core.mjs";
import { ANSWER_AT, launch, openPage as chromiumPage, skip } from "../../../testdata/interop/chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.ASKCORE_ACP_BIN || path.resolve(here, "../../../bin/askcore-acp");
if (skip) console.log(`# ${skip}`);
// Only a failing test waits that long: a loaded machine makes it slower,
// never red.
const TIMEOUT = 60_000;

// The scripted model: each session replays it from its first line.
const dbArgs = {
  header: "Database",
  question: "Which database should I use?",
  options: [
    { label: "PostgreSQL", value: "postgres", description: "a server" },
    { label: "SQLite", value: "sqlite", recommended: true },
  ],
  allowCustom: true,
};
const nameArgs = { question: "What should the project be called?" };
const script = [
  { content: "Let me ask.", tool_calls: [{ id: "call_db", name: "ask_user_question", arguments: dbArgs }] },
  { content: "You chose {{answer}}." },
  { tool_calls: [{ id: "call_name", name: "ask_user_question", arguments: nameArgs }] },
  { content: "Project: {{answer}}." },
];

let tmp;
let core;
let browser;

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "askcore-acp-web-"));
  core = await load();
  if (skip) return;
  const { chromium } = await import("playwright-core");
  browser = await launch(chromium, TIMEOUT);
});

after(async () => {
  try {
    await browser?.close();
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  }
});

// coreOut runs one envelope through the core and returns the result's or
// the error's JSON text exactly as the core wrote it.
const coreOut = (envelope) => coreText(core, envelope);

// picked is the core's answer to args for the picks (one per question).
const picked = (args, picks) => coreOut({ op: "resolve", arguments: JSON.stringify(args), inputs: picks.map((p) => ({ text: "", ...p })) }).text;

function withTimeout(promise, ms, what, agent) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms; stderr:\n${agent?.stderr ?? ""}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

// startAgent spawns askcore-acp and connects the official client to it
// WITHOUT elicitation capabilities; it records every line the agent writes.
// The browser is never opened by the agent (--no-browser): the test opens
// the page itself.
async function startAgent(t, name) {
  const scriptFile = path.join(tmp, `${name}.jsonl`);
  writeFileSync(scriptFile, script.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const args = ["--script", scriptFile, "--no-browser"];
  if (process.env.ASKCORE_ENGINE) args.push("--engine", process.env.ASKCORE_ENGINE);
  const agent = { name, stderr: "", lines: [], waiters: [] };
  agent.child = spawn(bin, args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ASKCORE_BROWSER: "none", XDG_CACHE_HOME: path.join(tmp, "cache") },
  });
  agent.child.stderr.on("data", (d) => {
    agent.stderr += d;
    for (const w of [...agent.waiters]) {
      const m = w.re.exec(agent.stderr);
      if (m) {
        agent.waiters.splice(agent.waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  agent.exited = new Promise((resolve, reject) => {
    agent.child.on("error", reject);
    agent.child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  const tap = new PassThrough();
  let partial = "";
  agent.child.stdout.on("data", (chunk) => {
    const parts = (partial + chunk.toString("utf8")).split("\n");
    partial = parts.pop();
    agent.lines.push(...parts);
  });
  agent.child.stdout.pipe(tap);
  agent.conn = acp.client({ name: "askcore-web-interop" }).connect(acp.ndJsonStream(Writable.toWeb(agent.child.stdin), Readable.toWeb(tap)));
  const init = await withTimeout(
    agent.conn.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "askcore-web-interop", version: "0.0.0" },
    }),
    TIMEOUT,
    "initialize",
    agent,
  );
  assert.equal(init.agentInfo?.name, "askcore-acp");
  t.after(async () => {
    agent.conn.close();
    agent.child.stdin.end();
    const { code, signal } = await withTimeout(agent.exited, TIMEOUT, `askcore-acp (${name}) did not exit`, agent);
    assert.equal(code, 0, `askcore-acp (${name}) exited with ${code ?? signal}; stderr:\n${agent.stderr}`);
    assert.doesNotMatch(agent.stderr, /panic|goroutine \d+ \[/);
    assert.ok(!agent.lines.some((l) => l.includes('"elicitation/create"')), "no form was sent to a client without forms");
  });
  return agent;
}

// pageURL resolves with the URL of the page the agent printed on stderr.
function pageURL(agent) {
  const m = ANSWER_AT.exec(agent.stderr);
  if (m) return Promise.resolve(m[1]);
  return withTimeout(new Promise((resolve) => agent.waiters.push({ re: ANSWER_AT, resolve })), TIMEOUT, "the page's URL on stderr", agent).then((m) => m[1]);
}

async function newSession(agent) {
  const session = await agent.conn.agent.buildSession(tmp).start();
  session.agent = agent;
  return session;
}

// turn sends one prompt and collects the session's updates, in order,
// until the prompt stops.
async function turn(session, text) {
  const done = session.prompt(text);
  const failed = done.then(() => new Promise(() => {}));
  const updates = [];
  for (;;) {
    const m = await withTimeout(Promise.race([session.nextUpdate(), failed]), 4 * TIMEOUT, "no update", session.agent);
    if (m.kind === "stop") {
      await done;
      return { updates, stopReason: m.stopReason };
    }
    updates.push(m.update);
  }
}

const texts = (updates) => updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);

// result is the tool_call_update of toolCallId among updates.
function result(updates, toolCallId) {
  const r = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === toolCallId);
  assert.equal(r.length, 1, JSON.stringify(updates));
  return r[0];
}

// assertRawOutputBytes: the agent wrote rawOutput as exactly these bytes
// in the tool_call_update of toolCallId in session.
function assertRawOutputBytes(session, toolCallId, bytes) {
  const lines = session.agent.lines.filter(
    (l) => l.includes(`"sessionId":${JSON.stringify(session.sessionId)}`) && l.includes(`"toolCallId":${JSON.stringify(toolCallId)}`) && l.includes('"tool_call_update"'),
  );
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.ok(lines[0].includes(`"rawOutput":${bytes},`), `rawOutput is not ${bytes} in\n${lines[0]}`);
}

// openPage opens url in a fresh browser context (chromium.mjs).
const openPage = (t, url) => chromiumPage(browser, t, url, TIMEOUT);

const opts = { skip, timeout: 8 * TIMEOUT };

test("no form elicitation: answered on the page with the mouse, then with the keyboard; the URL in the session", opts, async (t) => {
  const agent = await startAgent(t, "mouse");
  const session = await newSession(agent);
  const pending = turn(session, "go");
  const url = await pageURL(agent);
  const page = await openPage(t, url);
  await page.getByRole("radio", { name: "PostgreSQL" }).click();
  await page.getByRole("button", { name: "Submit" }).click();
  const r = await pending;
  assert.equal(r.stopReason, "end_turn");
  assert.deepEqual(texts(r.updates), ["Let me ask.", `\n\naskcore: answer at ${url}\n\n`, "You chose postgres."]);
  const answer = picked(dbArgs, [{ options: [0] }]);
  const done = result(r.updates, "call_db");
  assert.equal(done.status, "completed");
  assert.deepEqual(done.rawOutput, JSON.parse(answer));
  assertRawOutputBytes(session, "call_db", answer);
  // The page says what was chosen: the server's summary.
  await page.locator("form.askcore-call .askcore-status").filter({ hasText: "PostgreSQL" }).waitFor({ timeout: TIMEOUT });

  // The next question appears on the open page by itself; the keyboard
  // alone answers it: own text, then Enter.
  const next = turn(session, "a name?");
  const box = page.getByRole("textbox", { name: "Type your answer" });
  await box.waitFor({ timeout: TIMEOUT });
  await box.focus();
  await page.keyboard.type("Aurora <b>&</b>");
  await page.keyboard.press("Enter");
  const r2 = await next;
  assert.equal(r2.stopReason, "end_turn");
  assert.deepEqual(texts(r2.updates), [`\n\naskcore: answer at ${url}\n\n`, "Project: Aurora <b>&</b>."]);
  assertRawOutputBytes(session, "call_name", picked(nameArgs, [{ options: [], text: "Aurora <b>&</b>" }]));
  assert.equal([...agent.stderr.matchAll(new RegExp(ANSWER_AT, "g"))].length, 1, "one page, printed once");
});

test("declined on the page: ASK_DECLINED, the core's bytes", opts, async (t) => {
  const agent = await startAgent(t, "decline");
  const session = await newSession(agent);
  const pending = turn(session, "go");
  const page = await openPage(t, await pageURL(agent));
  await page.getByRole("button", { name: "Decline" }).click();
  const r = await pending;
  assert.equal(r.stopReason, "end_turn");
  const declined = coreOut({ op: "fail", situation: "declined" }).text;
  assert.equal(result(r.updates, "call_db").status, "failed");
  assertRawOutputBytes(session, "call_db", declined);
  assert.equal(texts(r.updates).at(-1), "You chose ASK_DECLINED.");
});

test("two sessions ask at once: both on one page, each answered once", opts, async (t) => {
  const agent = await startAgent(t, "two");
  const [first, second] = [await newSession(agent), await newSession(agent)];
  const one = turn(first, "go");
  const url = await pageURL(agent);
  const page = await openPage(t, url);
  const forms = page.locator("form.askcore-call");
  await forms.first().waitFor({ timeout: TIMEOUT });
  const two = turn(second, "go");
  await forms.nth(1).waitFor({ timeout: TIMEOUT });
  assert.equal(await forms.count(), 2);
  await forms.nth(0).getByRole("radio", { name: "SQLite" }).click();
  await forms.nth(0).getByRole("button", { name: "Submit" }).click();
  await forms.nth(1).getByRole("radio", { name: "PostgreSQL" }).click();
  await forms.nth(1).getByRole("button", { name: "Submit" }).click();
  assert.deepEqual(texts((await one).updates).at(-1), "You chose sqlite.");
  assert.deepEqual(texts((await two).updates).at(-1), "You chose postgres.");
  assertRawOutputBytes(first, "call_db", picked(dbArgs, [{ options: [1] }]));
  assertRawOutputBytes(second, "call_db", picked(dbArgs, [{ options: [0] }]));
});

test("session/cancel withdraws the question from the open page; the prompt ends cancelled", opts, async (t) => {
  const agent = await startAgent(t, "cancel");
  const session = await newSession(agent);
  const pending = turn(session, "go");
  const page = await openPage(t, await pageURL(agent));
  await page.getByRole("radio", { name: "PostgreSQL" }).waitFor({ timeout: TIMEOUT });
  await agent.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
  const r = await pending;
  assert.equal(r.stopReason, "cancelled");
  const aborted = result(r.updates, "call_db");
  assert.equal(aborted.status, "failed");
  assert.equal(aborted.rawOutput.code, "ASK_ABORTED");
  const form = page.locator('form.askcore-call[data-askcore-state="ended"]');
  await form.waitFor({ timeout: TIMEOUT });
  assert.equal(await form.getByRole("alert").textContent(), JSON.parse(coreOut({ op: "fail", situation: "aborted" }).text).message);
  assert.ok(await page.getByRole("radio", { name: "SQLite" }).isDisabled());
});
