// Browser (and any fetch-capable runtime) entry point: the bundled module is
// fetched from beside this file and compiled while it streams in.
import { compileResponse, compileSource, instantiate } from './lib/core.js';

export * from './lib/common.js';

/** @type {Promise<WebAssembly.Module> | null} */
let bundled = null;

function loadBundled() {
  if (!bundled) {
    bundled = fetch(new URL('./askcore.wasm', import.meta.url)).then(compileResponse);
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
  return instantiate(await compileSource(source, loadBundled), options);
}
