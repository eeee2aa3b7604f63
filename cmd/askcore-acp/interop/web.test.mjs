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
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { coreOut, picked } from "../../../testdata/interop/core.mjs";
import { ANSWER_AT, pagesInChromium, skip } from "../../../testdata/interop/chromium.mjs";
import { dbArgs, nameArgs } from "../../../testdata/interop/questions.mjs";
import { assertRawOutputBytes, newSession, spawnAgent, stopAgent, texts, turn } from "./agent.mjs";

if (skip) console.log(`# ${skip}`);
// Only a failing test waits that long: a loaded machine makes it slower,
// never red.
const TIMEOUT = 60_000;

// The scripted model: each session replays it from its first line.
const script = [
  { content: "Let me ask.", tool_calls: [{ id: "call_db", name: "ask_user_question", arguments: dbArgs }] },
  { content: "You chose {{answer}}." },
  { tool_calls: [{ id: "call_name", name: "ask_user_question", arguments: nameArgs }] },
  { content: "Project: {{answer}}." },
];

const tmp = mkdtempSync(path.join(tmpdir(), "askcore-acp-web-"));
after(() => rmSync(tmp, { recursive: true, force: true, maxRetries: 10 }));

// openPage opens url in a fresh browser context (chromium.mjs).
const openPage = pagesInChromium(() => import("playwright-core"), TIMEOUT);

// startAgent starts askcore-acp (agent.mjs) for a client WITHOUT
// elicitation capabilities, and stops it after test t, checking it sent no
// form. The browser is never opened by the agent (--no-browser): the test
// opens the page itself. Its waits are those of a prompt answered on the
// page.
async function startAgent(t, name) {
  const agent = await spawnAgent({
    dir: tmp,
    name,
    script,
    clientName: "askcore-web-interop",
    args: ["--no-browser"],
    env: { ASKCORE_BROWSER: "none" },
    timeout: 4 * TIMEOUT,
  });
  t.after(async () => {
    await stopAgent(agent);
    assert.doesNotMatch(agent.log.text(), /panic|goroutine \d+ \[/);
    assert.ok(!agent.lines.some((l) => l.includes('"elicitation/create"')), "no form was sent to a client without forms");
  });
  return agent;
}

// pageURL resolves with the URL of the page the agent printed on stderr.
const pageURL = (agent) => agent.log.match(ANSWER_AT, "the page's URL on stderr").then((m) => m[1]);

// result is the tool_call_update of toolCallId among updates.
function result(updates, toolCallId) {
  const r = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === toolCallId);
  assert.equal(r.length, 1, JSON.stringify(updates));
  return r[0];
}

const opts = { skip, timeout: 8 * TIMEOUT };

test("no form elicitation: answered on the page with the mouse, then with the keyboard; the URL in the session", opts, async (t) => {
  const agent = await startAgent(t, "mouse");
  const session = await newSession(agent, tmp);
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
  assert.equal([...agent.log.text().matchAll(new RegExp(ANSWER_AT, "g"))].length, 1, "one page, printed once");
});

test("declined on the page: ASK_DECLINED, the core's bytes", opts, async (t) => {
  const agent = await startAgent(t, "decline");
  const session = await newSession(agent, tmp);
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
  const [first, second] = [await newSession(agent, tmp), await newSession(agent, tmp)];
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
  const session = await newSession(agent, tmp);
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
