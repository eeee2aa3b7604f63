// The core's own bytes, for the interop suites of cmd/askcore-acp and
// cmd/askcore-mcp: askcore.wasm through hostjs, the same core the binaries
// embed and their answer page runs. It is loaded once, when a test file
// first imports this module.
import { load } from "../../hostjs/node.js";

const core = await load();

// coreOut runs one envelope through the core and returns the result's or
// the error's JSON text exactly as the core wrote it, with ok telling which.
export function coreOut(envelope) {
  const out = core.handle(JSON.stringify(envelope));
  for (const prefix of ['{"ok":true,"result":', '{"ok":false,"error":']) {
    if (out.startsWith(prefix)) return { ok: prefix.includes("true"), text: out.slice(prefix.length, -1) };
  }
  throw new Error(`unexpected core output: ${out}`);
}

// picked is the core's answer to args for the picks (one per question), as
// the answer page posts them.
export const picked = (args, picks) => coreOut({ op: "resolve", arguments: JSON.stringify(args), inputs: picks.map((p) => ({ text: "", ...p })) }).text;
