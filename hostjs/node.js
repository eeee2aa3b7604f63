// Node entry point: the bundled module is read from the file beside this one.
import { readFile } from 'node:fs/promises';
import { randomFillSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { compileSource, instantiate } from './lib/core.js';
import { HostFaultError } from './lib/errors.js';

export * from './lib/common.js';

/** @type {Promise<WebAssembly.Module> | null} */
let bundled = null;

function loadBundled() {
  if (!bundled) {
    const url = new URL('./askcore.wasm', import.meta.url);
    bundled = readFile(url).then(
      (b) => WebAssembly.compile(b),
      (err) => {
        // A bundle that inlined this file without copying askcore.wasm
        // beside it: say which file, and the ways out.
        const where = url.protocol === 'file:' ? fileURLToPath(url) : url.href;
        throw new HostFaultError(
          `askcore.wasm is missing: ${where} could not be read (${err?.code ?? err?.message ?? err}). ` +
            'Copy node_modules/@askcore/askcore/askcore.wasm next to the bundled file, or pass its bytes: load(await readFile(pathToAskcoreWasm))',
          { cause: err },
        );
      },
    );
    bundled.catch(() => {
      bundled = null;
    });
  }
  return bundled;
}

/**
 * Loads the askcore core. `source` may be omitted (the bundled askcore.wasm),
 * bytes, a WebAssembly.Module or a fetch Response. The compiled module is
 * cached: later loads only instantiate.
 * @param {unknown} [source]
 * @param {import('./lib/core.js').LoadOptions} [options]
 */
export async function load(source, options) {
  return instantiate(await compileSource(source, loadBundled), { platform: nodePlatform, ...options });
}

/** Clock and randomness Node has loaded already (see lib/wasi.js). */
const nodePlatform = {
  monotonicNs: () => process.hrtime.bigint(),
  realtimeNs: () => BigInt(Date.now()) * 1000000n,
  randomFill: (/** @type {Uint8Array} */ b) => void randomFillSync(b),
};
