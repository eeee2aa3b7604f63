// The real askcore-acp binary driven by the official TypeScript ACP client
// (@agentclientprotocol/sdk), for this suite's test files: the agent
// started on a scripted model, its sessions, its prompts' updates, and the
// bytes it wrote.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { engineArgs, exitOf, logOf, withTimeout } from "../../../testdata/interop/child.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.ASKCORE_ACP_BIN || path.resolve(here, "../../../bin/askcore-acp");

// spawnAgent spawns askcore-acp on script (the scripted model's lines,
// written to dir/NAME.jsonl; each session replays it from its first line)
// with args, and connects the official client to it as clientName. The
// client advertises form elicitation when it has onElicitation, the SDK's
// handler of elicitation/create. The agent records every line it writes
// (lines, from a tap between its stdout and the client) and its stderr
// (log, child.mjs). The wasm engine's compilation cache
// (os.UserCacheDir()/askcore/wazero) goes to dir/cache, not the user's
// ~/.cache. Each wait on the agent (initialize, an update, its exit) is at
// most timeout.
export async function spawnAgent({ dir, name, script, clientName, args = [], env = {}, onElicitation, timeout }) {
  const scriptFile = path.join(dir, `${name}.jsonl`);
  writeFileSync(scriptFile, script.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const child = spawn(bin, ["--script", scriptFile, ...args, ...engineArgs], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env, XDG_CACHE_HOME: path.join(dir, "cache") },
  });
  const agent = { name, child, timeout, lines: [], log: logOf(child.stderr, timeout), exited: exitOf(child) };

  const tap = new PassThrough();
  let partial = "";
  child.stdout.on("data", (chunk) => {
    const parts = (partial + chunk.toString("utf8")).split("\n");
    partial = parts.pop();
    agent.lines.push(...parts);
  });
  child.stdout.pipe(tap);

  let app = acp.client({ name: clientName });
  if (onElicitation) app = app.onRequest(acp.methods.client.elicitation.create, onElicitation);
  agent.conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(tap)));
  const initialize = agent.conn.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: onElicitation ? { elicitation: { form: {} } } : {},
    clientInfo: { name: clientName, version: "0.0.0" },
  });
  agent.init = await withTimeout(initialize, timeout, "initialize", agent.log.text);
  assert.equal(agent.init.agentInfo?.name, "askcore-acp");
  return agent;
}

// stopAgent closes the client's connection and the agent's stdin, and
// checks that the agent then exits 0 by itself. A file's after hook calls
// it for an agent its before hook may not have got to start.
export async function stopAgent(agent) {
  if (!agent) return;
  agent.conn.close();
  agent.child.stdin.end();
  const { code, signal } = await withTimeout(agent.exited, agent.timeout, `askcore-acp (${agent.name}) to exit`, agent.log.text);
  assert.equal(code, 0, `askcore-acp (${agent.name}) exited with ${code ?? signal}; stderr:\n${agent.log.text()}`);
}

// newSession starts a session of agent in dir; the session knows its agent
// (turn, assertRawOutputBytes).
export async function newSession(agent, dir) {
  const session = await agent.conn.agent.buildSession(dir).start();
  session.agent = agent;
  return session;
}

// turn sends one prompt and collects the session's updates, in order, until
// the prompt stops.
export async function turn(session, text) {
  const { agent } = session;
  const done = session.prompt(text);
  const failed = done.then(() => new Promise(() => {}));
  const updates = [];
  for (;;) {
    const m = await withTimeout(Promise.race([session.nextUpdate(), failed]), agent.timeout, "an update", agent.log.text);
    if (m.kind === "stop") {
      await done;
      return { updates, stopReason: m.stopReason };
    }
    updates.push(m.update);
  }
}

// texts is what the agent said in updates: its message chunks' text.
export const texts = (updates) => updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);

// assertRawOutputBytes asserts that the agent wrote rawOutput as exactly
// these bytes in the tool_call_update of toolCallId in session.
export function assertRawOutputBytes(session, toolCallId, bytes) {
  const lines = session.agent.lines.filter(
    (l) => l.includes(`"sessionId":${JSON.stringify(session.sessionId)}`) && l.includes(`"toolCallId":${JSON.stringify(toolCallId)}`) && l.includes('"tool_call_update"'),
  );
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.ok(lines[0].includes(`"rawOutput":${bytes},`), `rawOutput is not ${bytes} in\n${lines[0]}`);
}
