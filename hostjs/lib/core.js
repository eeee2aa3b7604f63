// Loading askcore.wasm and moving bytes in and out of it. Shared by the Node
// and browser entry points, which differ only in how the bundled module is
// found. Every rule lives in the Go core: this file builds envelopes, copies
// bytes and turns ok:false envelopes into UserInteractionError.

import { createWasi } from './wasi.js';
import { HarnessError, HostFaultError, UserInteractionError, Codes } from './errors.js';

export const ABI_VERSION = 1;

/**
 * Answers from resolve/elicitationResult carry, under this key, their JSON
 * text exactly as the core wrote it: what the model should receive.
 */
export const RAW = Symbol.for('askcore.raw');

const OK_PREFIX = '{"ok":true,"result":';

/**
 * The JSON text to hand a model for an answer: the core's own bytes when
 * known, else JSON.stringify.
 * @param {unknown} answer
 * @returns {string}
 */
export function answerText(answer) {
  const raw = answer && typeof answer === 'object' ? /** @type {any} */ (answer)[RAW] : undefined;
  return typeof raw === 'string' ? raw : JSON.stringify(answer);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A fresh instance replaces one whose linear memory grew past this (it never shrinks). */
const DEFAULT_MAX_MEMORY_BYTES = 256 * 1024 * 1024;

/** @type {WeakMap<object, Promise<WebAssembly.Module>>} */
const compiled = new WeakMap();

/**
 * Compiles (or reuses) the module for `source`. `loadDefault` fetches the
 * bundled module; its result is cached by the entry point.
 *
 * @param {unknown} source
 * @param {() => Promise<WebAssembly.Module>} loadDefault
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileSource(source, loadDefault) {
  if (source === undefined || source === null) return loadDefault();
  if (source instanceof WebAssembly.Module) return Promise.resolve(source);
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    let p = compiled.get(source);
    if (!p) {
      p = WebAssembly.compile(/** @type {BufferSource} */ (source));
      compiled.set(source, p);
      p.catch(() => compiled.delete(source));
    }
    return p;
  }
  if (typeof Response !== 'undefined' && source instanceof Response) return compileResponse(source);
  if (source && typeof (/** @type {any} */ (source).then) === 'function') {
    return Promise.resolve(source).then((s) => compileSource(s, loadDefault));
  }
  return Promise.reject(
    new TypeError('load(source): expected nothing, bytes (ArrayBuffer/Uint8Array), a WebAssembly.Module or a fetch Response'),
  );
}

/**
 * @param {Response} res
 * @returns {Promise<WebAssembly.Module>}
 */
export async function compileResponse(res) {
  if (!res.ok) throw new HostFaultError(`askcore.wasm: HTTP ${res.status} ${res.statusText} for ${res.url}`);
  const type = res.headers.get('content-type') ?? '';
  if (typeof WebAssembly.compileStreaming === 'function' && type.split(';')[0].trim() === 'application/wasm') {
    return WebAssembly.compileStreaming(res);
  }
  return WebAssembly.compile(await res.arrayBuffer());
}

/**
 * Instantiates `module` and runs the reactor's `_initialize`.
 *
 * @param {WebAssembly.Module} module
 * @param {LoadOptions} options
 */
export async function instantiate(module, options = {}) {
  const wasi = createWasi(module, options);
  const instance = await WebAssembly.instantiate(module, wasi.imports);
  return new Core(module, options, start(instance, wasi));
}

/**
 * @typedef {{ onStderr?: (line: string) => void, maxMemoryBytes?: number, platform?: import('./wasi.js').Platform }} LoadOptions
 * @typedef {{ askcore_abi_version(): number, askcore_input(n: number): number, askcore_handle(n: number): number,
 *   askcore_output(): number, askcore_max_input?: () => number, memory: WebAssembly.Memory, _initialize(): void }} Exports
 */

/**
 * @param {WebAssembly.Instance} instance
 * @param {ReturnType<typeof createWasi>} wasi
 * @returns {Exports}
 */
function start(instance, wasi) {
  const ex = /** @type {Exports} */ (/** @type {unknown} */ (instance.exports));
  wasi.bind(ex.memory);
  ex._initialize();
  const v = ex.askcore_abi_version();
  if (v !== ABI_VERSION) throw new HostFaultError(`askcore.wasm speaks ABI ${v}; this host speaks ${ABI_VERSION}`);
  return ex;
}

export class Core {
  /** @type {WebAssembly.Module} */ #module;
  /** @type {LoadOptions} */ #options;
  /** @type {Exports | null} */ #ex;
  /** @type {WebAssembly.Memory} */ #memory;
  /** @type {Uint8Array} */ #u8;
  /** @type {number} */ #maxInput;
  /** @type {number} */ #maxMemory;

  /**
   * @param {WebAssembly.Module} module
   * @param {LoadOptions} options
   * @param {Exports} ex
   */
  constructor(module, options, ex) {
    this.#module = module;
    this.#options = options;
    this.#maxMemory = options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES;
    this.#attach(ex);
  }

  /** @param {Exports} ex */
  #attach(ex) {
    this.#ex = ex;
    this.#memory = ex.memory;
    this.#u8 = new Uint8Array(ex.memory.buffer);
    this.#maxInput = typeof ex.askcore_max_input === 'function' ? ex.askcore_max_input() : 0x7fffffff;
  }

  /** The compiled module, to share with another load(). */
  get module() {
    return this.#module;
  }

  /** The largest input, in bytes, the module accepts. */
  get maxInputBytes() {
    return this.#maxInput;
  }

  /** Current size of the guest's linear memory, in bytes. */
  get memoryBytes() {
    return this.#memory.buffer.byteLength;
  }

  #mem() {
    const buf = this.#memory.buffer;
    if (this.#u8.buffer !== buf) this.#u8 = new Uint8Array(buf);
    return this.#u8;
  }

  #exports() {
    if (this.#ex) return this.#ex;
    // The previous instance trapped or grew too big: start a fresh one from
    // the compiled module (instances are cheap; compiling is not).
    const wasi = createWasi(this.#module, this.#options);
    this.#attach(start(new WebAssembly.Instance(this.#module, wasi.imports), wasi));
    return /** @type {Exports} */ (this.#ex);
  }

  /**
   * Runs one envelope; returns a view of the output inside guest memory,
   * valid until the next call.
   * @param {string | Uint8Array | ArrayBuffer} input
   * @returns {Uint8Array}
   */
  #call(input) {
    let n;
    try {
      const ex = this.#exports();
      if (typeof input === 'string') {
        const room = input.length * 3; // UTF-16 units to UTF-8 bytes, worst case
        const p = room <= this.#maxInput ? ex.askcore_input(room) : 0;
        if (p !== 0 || room === 0) {
          n = room === 0 ? 0 : encoder.encodeInto(input, this.#mem().subarray(p, p + room)).written;
        } else {
          return this.#callBytes(ex, encoder.encode(input));
        }
      } else {
        return this.#callBytes(ex, input instanceof Uint8Array ? input : new Uint8Array(input));
      }
      return this.#run(ex, n);
    } catch (err) {
      throw this.#fault(err);
    }
  }

  /**
   * @param {Exports} ex
   * @param {Uint8Array} bytes
   */
  #callBytes(ex, bytes) {
    const n = bytes.length;
    const p = n <= this.#maxInput ? ex.askcore_input(n) : 0;
    if (p === 0 && n !== 0) {
      // The core's own answer to an oversized input, which depends only on the
      // length (wasm/ABI.md, "Limits"): built here so nothing is copied in.
      return encoder.encode(
        '{"ok":false,"error":{"name":"UserInteractionError","code":"INVALID_REQUEST","message":"the input is ' +
          n + ' bytes; at most ' + this.#maxInput +
          ' are allowed: shorten the question, the options or their descriptions"}}',
      );
    }
    if (n !== 0) this.#mem().set(bytes, p);
    return this.#run(ex, n);
  }

  /**
   * @param {Exports} ex
   * @param {number} n
   */
  #run(ex, n) {
    const m = ex.askcore_handle(n);
    const q = ex.askcore_output();
    const mem = this.#mem();
    if (mem.byteLength > this.#maxMemory) this.#ex = null; // read this output, then replace the instance
    return mem.subarray(q, q + m);
  }

  /** @param {unknown} err */
  #fault(err) {
    this.#ex = null; // after a trap the Go runtime's state is unknown: never reuse it
    if (err instanceof HostFaultError) return err;
    return new HostFaultError(`askcore.wasm failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }

  /**
   * Runs one envelope and returns the output bytes decoded as UTF-8, exactly
   * as the core wrote them.
   * @param {string | Uint8Array} input
   * @returns {string}
   */
  handle(input) {
    return decoder.decode(this.#call(input));
  }

  /**
   * Like handle, but returns a copy of the raw output bytes.
   * @param {string | Uint8Array} input
   * @returns {Uint8Array}
   */
  handleBytes(input) {
    return this.#call(input).slice();
  }

  /**
   * @param {string} envelope
   * @returns {any}
   */
  #result(envelope) {
    const out = this.handle(envelope);
    const v = JSON.parse(out);
    if (v && v.ok === true) return v.result;
    if (v && v.ok === false) throw UserInteractionError.fromJSON(v.error);
    throw new HarnessError(Codes.ASK_FAILED, 'askcore.wasm returned no envelope');
  }

  /**
   * Like #result, and also returns the result's JSON text exactly as the
   * core wrote it.
   * @param {string} envelope
   * @returns {{value: any, raw: string}}
   */
  #resultRaw(envelope) {
    const out = this.handle(envelope);
    if (out.startsWith(OK_PREFIX) && out.endsWith('}')) {
      const raw = out.slice(OK_PREFIX.length, -1);
      return { value: JSON.parse(raw), raw };
    }
    const v = this.#parseError(out);
    return { value: v, raw: JSON.stringify(v) };
  }

  /** @param {string} out */
  #parseError(out) {
    const v = JSON.parse(out);
    if (v && v.ok === true) return v.result;
    if (v && v.ok === false) throw UserInteractionError.fromJSON(v.error);
    throw new HarnessError(Codes.ASK_FAILED, 'askcore.wasm returned no envelope');
  }

  /**
   * @param {string} envelope
   */
  #answer(envelope) {
    const { value, raw } = this.#resultRaw(envelope);
    if (value && typeof value === 'object') Object.defineProperty(value, RAW, { value: raw });
    return value;
  }

  /**
   * Normalizes a request; returns the normalized request and its JSON text
   * exactly as the core wrote it (pass `raw` back to the core unchanged).
   * @param {unknown} request
   * @returns {{request: any, raw: string}}
   */
  normalizeRaw(request) {
    const { value, raw } = this.#resultRaw('{"op":"normalize","request":' + json(request) + '}');
    return { request: value, raw };
  }

  /** @param {unknown} request */
  normalize(request) {
    return this.#result('{"op":"normalize","request":' + json(request) + '}');
  }

  schema() {
    return this.#result('{"op":"schema"}');
  }

  /** @param {unknown} request */
  present(request) {
    return this.#result('{"op":"present","request":' + json(request) + '}');
  }

  /**
   * @param {unknown} request
   * @param {string} input
   */
  resolve(request, input) {
    return this.#answer('{"op":"resolve","request":' + json(request) + ',"input":' + JSON.stringify(String(input)) + '}');
  }

  /** @param {unknown} request */
  elicitation(request) {
    return this.#result('{"op":"elicitation","request":' + json(request) + '}');
  }

  /**
   * @param {unknown} request
   * @param {unknown} response
   */
  elicitationResult(request, response) {
    return this.#answer('{"op":"elicitation_result","request":' + json(request) + ',"response":' + json(response) + '}');
  }

  /**
   * Any text (a model's reply, an error message) made safe to show, by the
   * core's rule for request fields: no escape sequences, controls or bidi
   * overrides; line breaks kept.
   * @param {string} text
   * @returns {string}
   */
  sanitize(text) {
    return this.#result('{"op":"sanitize","text":' + JSON.stringify(String(text)) + '}').text;
  }
}

/**
 * A string that is one JSON text (e.g. `raw` from normalizeRaw, or a model's
 * raw tool arguments) goes in as it is, so the core sees the very bytes;
 * anything else is serialized (a string that is not JSON becomes a JSON
 * string, which the core rejects as it should). The core validates either way.
 * @param {unknown} v
 */
function json(v) {
  if (typeof v === 'string') {
    try {
      JSON.parse(v); // one complete value: it cannot add keys to the envelope
      return v;
    } catch {
      return JSON.stringify(v);
    }
  }
  const s = JSON.stringify(v);
  return s === undefined ? 'null' : s;
}
