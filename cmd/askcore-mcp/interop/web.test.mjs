// Interop test, the answer page: the official TypeScript MCP client
// (@modelcontextprotocol/sdk), configured WITHOUT form elicitation, spawns
// the real askcore-mcp binary, and each question is answered on the local
// answer page in real headless Chromium (Debian's chromium driven by
// playwright-core; never a downloaded browser): the URL the server prints
// on stderr ("askcore: answer at URL"), or, for a client that advertises
// URL-mode elicitation, the URL it was sent (the client "consents" and
// opens it, as a client's dialog would). Run by scripts/test-interop.sh
// mcp, after interop.test.mjs and preview-notes.test.mjs.
//
// The MCP Inspector CLI (@modelcontextprotocol/inspector-cli, which
// advertises no elicitation and pipes the server's stderr away) gets its
// tools/call answered the same way, the page opened by "the browser":
// ASKCORE_BROWSER names opener.mjs, which hands the URL to the test.
//
// What it checks: the page answers with the mouse and with the keyboard,
// a decline (ASK_DECLINED), two concurrent calls on one page, the progress
// messages naming the page, notifications/cancelled withdrawing the
// question from the open page, and URL mode with
// notifications/elicitation/complete. Expected bytes come from the core
// through hostjs (the same askcore.wasm the binary and the page run).
//
// ASKCORE_MCP_BIN overrides the binary (default: ../../../bin/askcore-mcp);
// ASKCORE_ENGINE, when set, is passed as --engine; ASKCORE_CHROMIUM
// overrides /usr/bin/chromium (the tests skip, saying so, without one).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { assertResult, bin, callTool, connectServer, TIMEOUT, TOOL } from "./server.mjs";
import { coreOut, picked } from "../../../testdata/interop/core.mjs";
import { ANSWER_AT, pagesInChromium, skip } from "../../../testdata/interop/chromium.mjs";
import { engineArgs, withTimeout } from "../../../testdata/interop/child.mjs";
import { dbArgs, nameArgs } from "../../../testdata/interop/questions.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
if (skip) console.log(`# ${skip}`);

const cacheHome = mkdtempSync(path.join(tmpdir(), "askcore-mcp-web-"));
after(() => rmSync(cacheHome, { recursive: true, force: true, maxRetries: 10 }));
const serverEnv = () => ({ ...process.env, ASKCORE_LOG: "info", ASKCORE_BROWSER: "none", XDG_CACHE_HOME: cacheHome });

// openPage opens url in a fresh browser context (chromium.mjs).
const openPage = pagesInChromium(() => import("playwright-core"), TIMEOUT);

// connect spawns askcore-mcp through the SDK's stdio transport
// (server.mjs) and connects a client with the given capabilities (no form
// elicitation) to it, until test t ends.
async function connect(t, capabilities, extraArgs = []) {
  const on = await connectServer({ clientName: "askcore-web-interop", capabilities, args: ["--no-browser", ...extraArgs], env: serverEnv() });
  t.after(() => on.close());
  return on;
}

const opts = { skip, timeout: 4 * TIMEOUT };

test("no form elicitation: answered on the page with the mouse; the progress messages name the page", opts, async (t) => {
  const on = await connect(t, {}, ["--progress", "1s"]);
  const progress = [];
  const pending = callTool(on, dbArgs, { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true });
  const [, url] = await on.log.match(ANSWER_AT, "the page's URL on stderr");
  const page = await openPage(t, url);
  await page.getByRole("radio", { name: "PostgreSQL" }).click();
  await page.getByRole("button", { name: "Submit" }).click();
  const result = await withTimeout(pending, TIMEOUT, "tools/call", on.log.text);
  assertResult(result, picked(dbArgs, [{ options: [0] }]), false);
  // The form says what was chosen: the server's summary.
  const form = page.locator("form.askcore-call");
  await form.locator(".askcore-status").filter({ hasText: "PostgreSQL" }).waitFor({ timeout: TIMEOUT });
  assert.ok(progress.length >= 1, "at least the first progress notification, sent at once");
  // The core's words: how long the question waited, then where to answer.
  for (const p of progress) assert.match(p.message, /^Waiting for your answer…/);
  for (const p of progress) assert.ok(p.message.endsWith(` Answer at ${url}`), p.message);
});

test("no form elicitation: the keyboard alone, own text typed and Enter", opts, async (t) => {
  const on = await connect(t, {});
  const pending = callTool(on, nameArgs);
  const [, url] = await on.log.match(ANSWER_AT, "the page's URL on stderr");
  const page = await openPage(t, url);
  const box = page.getByRole("textbox", { name: "Type your answer" });
  await box.waitFor({ timeout: TIMEOUT });
  await page.keyboard.type("Aurora <b>&</b>");
  await page.keyboard.press("Enter");
  assertResult(await withTimeout(pending, TIMEOUT, "tools/call", on.log.text), picked(nameArgs, [{ options: [], text: "Aurora <b>&</b>" }]), false);
});

test("declined on the page: ASK_DECLINED, the core's bytes", opts, async (t) => {
  const on = await connect(t, {});
  const pending = callTool(on, dbArgs);
  const [, url] = await on.log.match(ANSWER_AT, "the page's URL on stderr");
  const page = await openPage(t, url);
  await page.getByRole("button", { name: "Decline" }).click();
  const result = await withTimeout(pending, TIMEOUT, "tools/call", on.log.text);
  // A decline is the same verdict whatever asked: the core's ASK_DECLINED.
  assertResult(result, coreOut({ op: "elicitation_result", arguments: JSON.stringify(dbArgs), response: { action: "decline" } }).text, true);
  assert.equal(result.structuredContent.code, "ASK_DECLINED");
});

test("two concurrent calls: both on one page, each answered once", opts, async (t) => {
  const on = await connect(t, {});
  const first = callTool(on, dbArgs);
  const second = callTool(on, nameArgs);
  const [, url] = await on.log.match(ANSWER_AT, "the page's URL on stderr");
  const page = await openPage(t, url);
  await page.getByRole("textbox", { name: "Type your answer" }).fill("Hardy");
  await page.getByRole("radio", { name: "SQLite" }).click();
  const forms = page.locator("form.askcore-call");
  assert.equal(await forms.count(), 2);
  for (const form of await forms.all()) await form.getByRole("button", { name: "Submit" }).click();
  assertResult(await withTimeout(first, TIMEOUT, "first call", on.log.text), picked(dbArgs, [{ options: [1] }]), false);
  assertResult(await withTimeout(second, TIMEOUT, "second call", on.log.text), picked(nameArgs, [{ options: [], text: "Hardy" }]), false);
  assert.equal([...on.log.text().matchAll(new RegExp(ANSWER_AT, "g"))].length, 1, "one page, printed once");
});

test("notifications/cancelled withdraws the question from the open page", opts, async (t) => {
  const on = await connect(t, {});
  const abort = new AbortController();
  const pending = callTool(on, dbArgs, { signal: abort.signal });
  const [, url] = await on.log.match(ANSWER_AT, "the page's URL on stderr");
  const page = await openPage(t, url);
  await page.getByRole("radio", { name: "PostgreSQL" }).waitFor({ timeout: TIMEOUT });
  abort.abort("the user pressed Esc in the agent");
  await assert.rejects(pending);
  const form = page.locator("form.askcore-call");
  await page.locator('form.askcore-call[data-askcore-state="ended"]').waitFor({ timeout: TIMEOUT });
  assert.equal(await form.getByRole("alert").textContent(), JSON.parse(coreOut({ op: "fail", situation: "aborted" }).text).message);
  assert.ok(await page.getByRole("radio", { name: "SQLite" }).isDisabled());
  await on.log.match(/outcome=ASK_ABORTED/, "ASK_ABORTED in the server log");
});

test("URL mode: the client is sent the page's URL, opens it, and hears notifications/elicitation/complete", opts, async (t) => {
  const on = await connect(t, { elicitation: { url: {} } });
  const requests = [];
  let pageOpened;
  const opened = new Promise((resolve) => (pageOpened = resolve));
  on.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    requests.push(request.params);
    // The person consented in the client's dialog: the client opens the URL.
    pageOpened(await openPage(t, request.params.url));
    return { action: "accept" };
  });
  let completed;
  const complete = new Promise((resolve) => (completed = resolve));
  on.client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => completed(n.params.elicitationId));
  const pending = callTool(on, dbArgs);
  const [, url] = await on.log.match(ANSWER_AT, "the page's URL on stderr");
  const page = await withTimeout(opened, TIMEOUT, "the URL-mode request", on.log.text);
  assert.equal(requests.length, 1);
  assert.deepEqual({ ...requests[0], elicitationId: "" }, { mode: "url", message: "Answer in your browser: Which database should I use?", url, elicitationId: "" });
  assert.match(requests[0].elicitationId, /^[0-9a-f]{32}$/);
  await page.getByRole("radio", { name: "SQLite" }).click();
  await page.getByRole("button", { name: "Submit" }).click();
  assertResult(await withTimeout(pending, TIMEOUT, "tools/call", on.log.text), picked(dbArgs, [{ options: [1] }]), false);
  assert.equal(await withTimeout(complete, TIMEOUT, "notifications/elicitation/complete", on.log.text), requests[0].elicitationId);
});

test("the MCP Inspector CLI: tools/call answered on the page the server opened in the browser", opts, async (t) => {
  // "The browser": opener.mjs posts the URL it is given here.
  let opened;
  const gotURL = new Promise((resolve) => (opened = resolve));
  const reports = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      res.end();
      opened(body);
    });
  });
  await new Promise((resolve) => reports.listen(0, "127.0.0.1", resolve));
  t.after(() => reports.close());
  const report = `http://127.0.0.1:${reports.address().port}/`;
  const cli = path.resolve(here, "node_modules/@modelcontextprotocol/inspector-cli/build/index.js");
  const args = { question: "Which database?", options: [{ label: "PostgreSQL", value: "postgres" }, { label: "SQLite", recommended: true }] };
  const child = spawn(process.execPath, [
    cli, bin, "--method", "tools/call", "--tool-name", TOOL,
    "--tool-arg", `question=${args.question}`, `options=${JSON.stringify(args.options)}`,
    ...(engineArgs.length ? ["--", ...engineArgs] : []),
  ], {
    // The CLI looks for its package.json with a path relative to the
    // working directory (inspector-cli 1.0.3): run it from its build/.
    cwd: path.dirname(cli),
    env: { ...serverEnv(), ASKCORE_BROWSER: `${process.execPath} ${path.join(here, "opener.mjs")} ${report}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  t.after(() => child.kill());
  const inspectorStderr = () => `inspector stderr:\n${stderr}`;
  const url = await withTimeout(gotURL, TIMEOUT, "the browser opened by the server", inspectorStderr);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/);
  const page = await openPage(t, url);
  await page.getByRole("radio", { name: "PostgreSQL" }).click();
  await page.getByRole("button", { name: "Submit" }).click();
  assert.equal(await withTimeout(exited, TIMEOUT, "the Inspector CLI's exit", inspectorStderr), 0, stderr);
  assertResult(JSON.parse(stdout), picked(args, [{ options: [0] }]), false);
});
