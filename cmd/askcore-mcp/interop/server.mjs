// The real askcore-mcp binary for this suite's test files: the official
// TypeScript MCP client (@modelcontextprotocol/sdk) connected to it through
// the SDK's own stdio transport, its tool called, and what a tool result
// must hold to be the core's bytes.
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { engineArgs, logOf, withTimeout } from "../../../testdata/interop/child.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const bin = process.env.ASKCORE_MCP_BIN || path.resolve(here, "../../../bin/askcore-mcp");

// TIMEOUT is how long a test waits for the server (to connect, to answer a
// call, to write a line on stderr). Only a failing test waits that long.
export const TIMEOUT = 30_000;
export const TOOL = "ask_user_question";

// connectServer spawns askcore-mcp with args (after --engine, when set)
// and env, and connects a client named clientName with the given
// capabilities to it. It returns the client, the server's stderr (log,
// child.mjs) and its pid; close() closes the client, which ends the
// server's stdin, and checks that the server did not panic.
export async function connectServer({ clientName, capabilities, args = [], env }) {
  const transport = new StdioClientTransport({ command: bin, args: [...engineArgs, ...args], env, stderr: "pipe" });
  const log = logOf(transport.stderr, TIMEOUT);
  const client = new Client({ name: clientName, version: "0.0.0" }, { capabilities });
  await withTimeout(client.connect(transport), TIMEOUT, "connect", log.text);
  return {
    client,
    log,
    pid: transport.pid,
    async close() {
      await client.close();
      assert.doesNotMatch(log.text(), /panic|goroutine \d+ \[/);
    },
  };
}

// callTool calls ask_user_question with args on the client of on (a
// connection); options are the SDK's request options.
export function callTool(on, args, options = {}) {
  return on.client.callTool({ name: TOOL, arguments: args }, CallToolResultSchema, { timeout: TIMEOUT, ...options });
}

// assertResult: one text block holding exactly `text`, structuredContent the
// same object, isError as given.
export function assertResult(result, text, isError) {
  assert.equal(result.content.length, 1, JSON.stringify(result));
  assert.equal(result.content[0].type, "text");
  assert.equal(result.content[0].text, text, "the text content is the core's bytes");
  assert.deepEqual(result.structuredContent, JSON.parse(text), "structuredContent is the core's object");
  assert.equal(result.isError ?? false, isError, JSON.stringify(result));
}
