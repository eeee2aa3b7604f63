// The core's own bytes, for the interop suites of cmd/askcore-acp and cmd/askcore-mcp:
// coreText runs one envelope through core (hostjs, the same askcore.wasm
// the binaries embed) and returns the result's or the error's JSON text
// exactly as the core wrote it, with ok telling which.
export function coreText(core, envelope) {
  const out = core.handle(JSON.stringify(envelope));
  for (const prefix of ['{"ok":true,"result":', '{"ok":false,"error":']) {
    if (out.startsWith(prefix)) return { ok: prefix.includes("true"), text: out.slice(prefix.length, -1) };
  }
  throw new Error(`unexpected core output: ${out}`);
}
