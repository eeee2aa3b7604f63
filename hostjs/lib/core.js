// Loading askcore.wasm and moving bytes in and out of it. Shared by the Node
// and browser entry points, which differ only in how the bundled module is
// found. Every rule lives in the Go core: this file builds envelopes (model
// text always as an encoded JSON string, never pasted), copies bytes, and
// turns ok:false envelopes into the core's errors, keeping the core's own
// JSON text of answers (RAW) and errors (`raw`).

import { createWasi } from './wasi.js';
import { HarnessError, HostFaultError, errorFromCore, markSituation, rememberCore } from './errors.js';

export const ABI_VERSION = 1;

/**
 * Answers from resolve/elicitationResult carry, under this key, their JSON
 * text exactly as the core wrote it: what the model should receive.
 */
export const RAW = Symbol.for('askcore.raw');

const OK_PREFIX = '{"ok":true,"result":';
const ERROR_PREFIX = '{"ok":false,"error":';

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
    new TypeError(
      'load(source): expected nothing, bytes (ArrayBuffer/Uint8Array), a WebAssembly.Module or a fetch Response (or a promise of one), got ' +
        describeSource(source) +
        (typeof source === 'string' || source instanceof URL ? ': for a URL pass load(fetch(url)); for a file, load(await readFile(path))' : ''),
    ),
  );
}

/** @param {unknown} v */
function describeSource(v) {
  if (v === null || typeof v !== 'object') return typeof v;
  const name = /** @type {any} */ (v).constructor?.name;
  return typeof name === 'string' && name !== '' ? 'a ' + name : 'an object';
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
 * @typedef {import('../index.js').LoadOptions} LoadOptions
 * @typedef {{ askcore_abi_version(): number, askcore_input(n: number): number, askcore_handle(n: number): number,
 *   askcore_output(): number, askcore_max_input?: () => number, askcore_oversized?: (n: bigint) => number,
 *   memory: WebAssembly.Memory, _initialize(): void }} Exports
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
  /** @type {(string | undefined)[]} the tool's JSON text, plain and strict (op "schema" writes the same bytes every time) */ #schemas = [];

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
    rememberCore(this);
  }

  /** @param {Exports} ex */
  #attach(ex) {
    this.#ex = ex;
    this.#memory = ex.memory;
    this.#u8 = new Uint8Array(ex.memory.buffer);
    this.#maxInput = typeof ex.askcore_max_input === 'function' ? ex.askcore_max_input() : 0x7fffffff;
  }

  /**
   * The compiled module, to share with another load(). Declared as index.d.ts's
   * WasmModule, which needs no DOM lib; at run time it is the WebAssembly.Module.
   * @returns {import('../index.js').WasmModule}
   */
  get module() {
    return /** @type {any} */ (this.#module);
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
    if (n > this.#maxInput) return this.#oversized(ex, n);
    const p = ex.askcore_input(n);
    if (p === 0 && n !== 0) throw new HostFaultError(`askcore.wasm refused an input buffer of ${n} bytes`);
    if (n !== 0) this.#mem().set(bytes, p);
    return this.#run(ex, n);
  }

  /**
   * The core's own answer to an input of n bytes over the limit, which
   * depends on the length alone (wasm/ABI.md, "Limits"): written by the guest
   * (askcore_oversized), so nothing is copied in.
   * @param {Exports} ex
   * @param {number} n
   */
  #oversized(ex, n) {
    if (typeof ex.askcore_oversized !== 'function') {
      throw new HostFaultError(`the input is ${n} bytes, over askcore_max_input, and this askcore.wasm has no askcore_oversized export`);
    }
    const m = ex.askcore_oversized(BigInt(n));
    const q = ex.askcore_output();
    return this.#mem().subarray(q, q + m);
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
   * Runs one envelope: the result's value and its JSON text exactly as the
   * core wrote it; an ok:false envelope is thrown as the core's error (its
   * `raw` is the error object's text).
   * @param {string} envelope
   * @returns {{value: any, raw: string}}
   */
  #exec(envelope) {
    const out = this.handle(envelope);
    const ok = out.startsWith(OK_PREFIX);
    if ((ok || out.startsWith(ERROR_PREFIX)) && out.endsWith('}')) {
      const raw = out.slice(ok ? OK_PREFIX.length : ERROR_PREFIX.length, -1);
      let value;
      try {
        value = JSON.parse(raw);
      } catch (err) {
        throw this.#fault(err);
      }
      if (ok) return { value, raw };
      throw errorFromCore(value, raw);
    }
    throw this.#fault(new Error('askcore.wasm returned no envelope'));
  }

  /**
   * Like #exec, for ops whose result is an answer or a normalized call: the
   * value carries its raw text (RAW) and is remembered, so passing it back to
   * the core passes the core's own bytes.
   * @param {string} envelope
   */
  #remembered(envelope) {
    const { value, raw } = this.#exec(envelope);
    if (value && typeof value === 'object') {
      Object.defineProperty(value, RAW, { value: raw });
      remember(value, raw);
    }
    return value;
  }

  /**
   * Normalizes a call: the model's arguments as text (a string goes to the
   * core as "arguments", which it parses itself), an object (a request or a
   * batch a JS caller built), or a call the core normalized already.
   * @param {unknown} call
   */
  normalize(call) {
    return this.#remembered('{"op":"normalize",' + callField(call) + '}');
  }

  /**
   * Normalizes a call; returns it as askcore.Call is in Go: `raw`, the
   * normalized call as the core wrote it (pass it, or this object, back to
   * the core unchanged), `questions` (one unless `batch`), and `request`,
   * the normalized call decoded (one question, or {questions}).
   * @param {unknown} call
   * @returns {{request: any, raw: string, questions: any[], batch: boolean}}
   */
  normalizeRaw(call) {
    return callFromResult(this.#exec('{"op":"normalize",' + callField(call) + '}'));
  }

  /**
   * The model-facing tool (op "schema"): {name, description, parameters}.
   * With {strict: true}, its variant for OpenAI's strict function calling
   * (every object closed, every property required, null for a field left
   * out, which the core reads as absent; the questions always in
   * questions, so the answer is always {answers: [...]}).
   * @param {{strict?: boolean}} [options]
   */
  schema(options) {
    const strict = options?.strict;
    if (strict === undefined || strict === null || typeof strict === 'boolean') {
      // The tool is the same for every call of one module: the core writes
      // it once per variant, each call parses a fresh copy.
      const key = strict === true ? 1 : 0;
      this.#schemas[key] ??= this.#exec(key ? '{"op":"schema","strict":true}' : '{"op":"schema"}').raw;
      return JSON.parse(this.#schemas[key]);
    }
    return this.#exec('{"op":"schema","strict":' + valueJSON(strict) + '}').value;
  }

  /**
   * What a terminal shows for question `index` (default 0) of a call.
   * @param {unknown} call
   * @param {number} [index]
   */
  present(call, index) {
    return this.#exec('{"op":"present",' + callField(call) + indexField(index) + '}').value;
  }

  /**
   * Answers question `index` of a call (required for a batch; default 0
   * otherwise) from one input: a typed line, or a keyboard picker's pick
   * {options, text, notes?}. Throws INVALID_ANSWER with a message fit for the
   * re-prompt.
   * @param {unknown} call
   * @param {string | {options?: number[], text?: string, notes?: string}} input
   * @param {number} [index]
   */
  resolve(call, input, index) {
    return this.#remembered('{"op":"resolve",' + callField(call) + indexField(index) + ',"input":' + inputJSON(input) + '}');
  }

  /**
   * Answers a whole call from one input per question (typed lines or picks):
   * the answer the model receives ({"answers":[...]} for a batch).
   * @param {unknown} call
   * @param {Array<string | {options?: number[], text?: string, notes?: string}>} inputs
   */
  resolveAll(call, inputs) {
    if (!Array.isArray(inputs)) throw new TypeError('resolveAll(call, inputs): inputs is an array, one input per question');
    return this.#remembered('{"op":"resolve",' + callField(call) + ',"inputs":[' + inputs.map(inputJSON).join(',') + ']}');
  }

  /**
   * What a keyboard picker shows for a call (op "picker").
   * @param {unknown} call
   */
  picker(call) {
    return this.#exec('{"op":"picker",' + callField(call) + '}').value;
  }

  /**
   * One line per question saying what an answer chose (op "summary"), for
   * echo lines and tool cards. With `index`, `answer` is that question's own
   * answer (as resolve with index returned it).
   * @param {unknown} call
   * @param {unknown} answer an answer the core returned (its own bytes go back), or an object
   * @param {number} [index]
   * @returns {string}
   */
  summary(call, answer, index) {
    return this.#exec('{"op":"summary",' + callField(call) + indexField(index) + ',"answer":' + valueJSON(answer) + '}').value.text;
  }

  /**
   * The form for a call (op "elicitation"), for ACP (default) or MCP
   * clients; `client`, the client's clientInfo name, leaves out what that
   * client cannot show or submit (Go: Call.Form, Call.FormFor).
   * @param {unknown} call
   * @param {{for?: 'acp' | 'mcp', client?: string}} [options]
   */
  elicitation(call, options) {
    let env = '{"op":"elicitation",' + callField(call);
    if (options?.for !== undefined) env += ',"for":' + valueJSON(options.for);
    if (options?.client !== undefined && options.client !== '') env += ',"client":' + valueJSON(options.client);
    return this.#exec(env + '}').value;
  }

  /**
   * What a host does next with a client's reply to a call's form (op
   * "form_reply"; Go: Call.JudgeForm): {next: "answer", answer} (the tool
   * result, accepted for this call), {next: "ask_again", form, round,
   * roundsLeft} (send form, then judge its reply with round), {next: "end",
   * error} or {next: "next_surface", error} (nobody saw the question here:
   * try the next surface). `delivery` holds what the host knows about how the
   * request went: {ms, client, clientVersion, mode: "form"|"url", trigger,
   * entrypoint}.
   * @param {unknown} call
   * @param {import('../index.js').FormRound} reply
   * @returns {import('../index.js').FormStep}
   */
  formReply(call, reply) {
    if (!reply || typeof reply !== 'object') throw new TypeError('formReply(call, reply): reply is {response, round?, for?, delivery?}');
    let env = '{"op":"form_reply",' + callField(call) + ',"response":' + valueJSON(reply.response);
    if (reply.round !== undefined && reply.round !== null) env += ',"round":' + valueJSON(reply.round);
    if (reply.for !== undefined) env += ',"for":' + valueJSON(reply.for);
    if (reply.delivery !== undefined && reply.delivery !== null) env += ',"delivery":' + deliveryJSON(reply.delivery);
    const { value, raw } = this.#exec(env + '}');
    /** @type {any} */
    const step = { next: value.next };
    if (value.next === 'answer') {
      const answerRaw = raw.slice('{"next":"answer","answer":'.length, -1);
      step.answer = value.answer;
      Object.defineProperty(step.answer, RAW, { value: answerRaw });
      remember(step.answer, answerRaw);
    } else if (value.next === 'ask_again') {
      Object.assign(step, { form: value.form, round: value.round, roundsLeft: value.roundsLeft });
    } else {
      // "error" is the result's last field: its bytes run to the end.
      const errorRaw = raw.slice(raw.indexOf(',"error":') + ',"error":'.length, -1);
      step.error = errorFromCore(value.error, errorRaw);
      if (value.situation !== undefined) markSituation(step.error, value.situation, value.reason ?? value.error.message);
    }
    return step;
  }

  /**
   * The words of a progress message for a question that has waited `ms`
   * milliseconds (op "progress"; Go: Core.Progress): "Waiting for your
   * answer… (1 minute 5 seconds so far). Answer at URL". Send it only while
   * the question is open.
   * @param {{ms: number, url?: string}} progress
   * @returns {string}
   */
  progress(progress) {
    const ms = Math.max(0, Math.floor(Number(progress?.ms)));
    if (!Number.isFinite(ms)) throw new TypeError(`progress: ms must be a finite number, got ${progress?.ms}`);
    let env = '{"op":"progress","ms":' + ms;
    if (progress.url !== undefined && progress.url !== '') env += ',"url":' + valueJSON(progress.url);
    return this.#exec(env + '}').value.message;
  }

  /**
   * The call's answer to a client's form response ({action, content}; any
   * value, serialized with JSON.stringify).
   * @param {unknown} call
   * @param {unknown} response
   */
  elicitationResult(call, response) {
    return this.#remembered('{"op":"elicitation_result",' + callField(call) + ',"response":' + valueJSON(response) + '}');
  }

  /**
   * The core's error for a situation that ends an ask outside the request
   * rules (op "fail"): no_provider, aborted (detail), withdrawn, timeout
   * (ms), no_answer, provider_failed (detail), engine_fault, eof, ... It is
   * returned, not thrown, with `raw` set. An unknown situation gives the
   * core's INVALID_REQUEST. A fresh instance is tried once when the engine
   * faults (the faulty one is discarded).
   * @param {{situation: string, detail?: string, ms?: number, tool?: string, tools?: string[], reasons?: string[]}} failure
   * @returns {HarnessError}
   */
  fail(failure) {
    const env = failEnvelope(failure);
    for (let attempt = 0; ; attempt++) {
      try {
        const { value, raw } = this.#exec(env);
        return markSituation(errorFromCore(value, raw), String(failure.situation), failReason(failure, String(value?.message ?? '')));
      } catch (err) {
        if (err instanceof HarnessError) return err;
        if (!(err instanceof HostFaultError) || attempt > 0) throw err;
      }
    }
  }

  /**
   * What a terminal front door does (op "terminal"): the host reads the
   * facts, the core decides. Absent facts are false or empty.
   * @param {{stdinTTY?: boolean, stderrTTY?: boolean, outTTY?: boolean, term?: string, noColor?: string, plain?: string, plainFlag?: boolean}} [facts]
   * @returns {{picker: boolean, color: boolean}}
   */
  terminal(facts = {}) {
    const { stdinTTY, stderrTTY, outTTY, term, noColor, plain, plainFlag } = facts;
    return this.#exec(JSON.stringify({ op: 'terminal', stdinTTY, stderrTTY, outTTY, term, noColor, plain, plainFlag })).value;
  }

  /**
   * Any text (a model's reply, an error message) made safe to show, by the
   * core's rule for request fields: no escape sequences, controls or bidi
   * overrides; line breaks kept. With {as: "title"}: one line, cut, as the
   * core writes titles.
   * @param {string} text
   * @param {{as?: 'text' | 'title'}} [options]
   * @returns {string}
   */
  sanitize(text, options) {
    const as = options?.as;
    return this.#exec('{"op":"sanitize","text":' + JSON.stringify(String(text)) + (as === undefined ? '' : ',"as":' + valueJSON(as)) + '}').value.text;
  }

  /**
   * Model text made fit for one line of a title: sanitize(text, {as: "title"}).
   * @param {string} text
   * @returns {string}
   */
  sanitizeTitle(text) {
    return this.sanitize(text, { as: 'title' });
  }
}

/**
 * The JSON text the core wrote for objects it returned (normalized calls,
 * answers, and the Question objects built around them), so that passing
 * one back passes the core's own bytes, as Go passes json.RawMessage. A
 * WeakMap, not a property: nothing outside this package can make the host
 * paste text of its own choosing into an envelope.
 * @type {WeakMap<object, string>}
 */
const coreRaw = new WeakMap();

/**
 * Records that `obj` stands for `raw`, JSON text the core wrote. Internal to
 * the package (the interaction seam registers its Question objects).
 * @template T
 * @param {T} obj
 * @param {string} raw
 * @returns {T}
 */
export function remember(obj, raw) {
  if (obj && typeof obj === 'object') coreRaw.set(obj, raw);
  return obj;
}

/**
 * A normalized call from op normalize's result, shaped as Go's askcore.Call.
 * @param {{value: any, raw: string}} r
 */
function callFromResult({ value, raw }) {
  Object.defineProperty(value, RAW, { value: raw });
  remember(value, raw);
  const batch = Array.isArray(value.questions);
  const call = { request: value, raw, questions: batch ? value.questions : [value], batch };
  return remember(call, raw);
}

/**
 * The envelope field holding the call an op is about. A string is the
 * model's arguments as text: it goes in as a JSON string under "arguments"
 * and the core parses it (never pasted). An object the core wrote (or a
 * Question/normalizeRaw result) goes back as the core's own bytes under
 * "request"; a copy of one that lost its identity goes by its `raw` text, as
 * arguments; any other object is serialized with JSON.stringify.
 * @param {unknown} call
 */
function callField(call) {
  if (typeof call === 'string') return argumentsField(call);
  if (call && typeof call === 'object') {
    const raw = coreRaw.get(call);
    if (raw !== undefined) return '"request":' + raw;
    const c = /** @type {any} */ (call);
    if (typeof c.raw === 'string' && Array.isArray(c.questions) && typeof c.batch === 'boolean') {
      return argumentsField(c.raw);
    }
  }
  return '"request":' + valueJSON(call);
}

/**
 * The core's limit on the model's arguments text, in UTF-8 bytes (Go:
 * core.MaxArgumentsBytes; the conformance corpus pins the core's verdict).
 */
export const MAX_ARGUMENTS_BYTES = 256 * 1024;

/**
 * The "arguments" field for the model's text: the text as a JSON string,
 * which the core parses. A text over the core's limit is not copied in:
 * the field is its length ("argumentsBytes"), and the core gives the same
 * verdict it gives for the text itself, on every host.
 * @param {string} text
 */
function argumentsField(text) {
  // UTF-8 takes at most 3 bytes per UTF-16 unit (a lone surrogate becomes
  // U+FFFD, 3 bytes, as the core decodes it): count only when it matters.
  if (text.length * 3 > MAX_ARGUMENTS_BYTES) {
    const n = encoder.encode(text).length;
    if (n > MAX_ARGUMENTS_BYTES) return '"argumentsBytes":' + n;
  }
  return '"arguments":' + JSON.stringify(text);
}

/**
 * A value for the envelope: an object the core wrote goes back as its own
 * bytes; anything else through JSON.stringify (undefined as null, which the
 * core reads as absent).
 * @param {unknown} v
 */
function valueJSON(v) {
  if (v && typeof v === 'object') {
    const raw = coreRaw.get(v);
    if (raw !== undefined) return raw;
  }
  const s = JSON.stringify(v);
  return s === undefined ? 'null' : s;
}

/**
 * One input to resolve as the core reads it: a typed line (a string), or a
 * pick {"options":[...],"text":"...","notes":"..."} (as Go's askcore.Pick
 * writes it: "notes" only when the pick has some; the core judges them).
 * @param {unknown} input
 */
function inputJSON(input) {
  if (typeof input === 'string') return JSON.stringify(input);
  if (input === undefined || input === null) return 'null';
  if (typeof input === 'object') {
    const p = /** @type {any} */ (input);
    /** @type {{options: unknown, text: unknown, notes?: unknown}} */
    const o = { options: p.options ?? [], text: p.text ?? '' };
    if (p.notes !== undefined && p.notes !== '') o.notes = p.notes;
    return JSON.stringify(o);
  }
  return JSON.stringify(String(input));
}

/** @param {unknown} index */
function indexField(index) {
  if (index === undefined || index === null) return '';
  if (typeof index === 'number' && !Number.isFinite(index)) throw new TypeError(`index must be a finite number, got ${index}`);
  return ',"index":' + JSON.stringify(index);
}

/**
 * Op "fail" for a failure; absent (or empty) particulars are left out, as
 * Go's Core.Fail does.
 * @param {{situation: string, detail?: unknown, ms?: number, tool?: string, tools?: string[], reasons?: string[]}} f
 */
function failEnvelope(f) {
  if (!f || typeof f !== 'object') throw new TypeError('fail(failure): failure is {situation, detail?, ms?, tool?, tools?}');
  let env = '{"op":"fail","situation":' + valueJSON(f.situation);
  if (f.detail !== undefined && f.detail !== null && f.detail !== '') env += ',"detail":' + JSON.stringify(failText(f.detail));
  if (f.ms !== undefined && f.ms !== null && f.ms !== 0) {
    if (typeof f.ms === 'number' && !Number.isFinite(f.ms)) throw new TypeError(`fail: ms must be a finite number, got ${f.ms}`);
    env += ',"ms":' + JSON.stringify(f.ms);
  }
  if (f.tool !== undefined && f.tool !== null && f.tool !== '') env += ',"tool":' + JSON.stringify(failText(f.tool));
  if (Array.isArray(f.tools)) env += ',"tools":' + JSON.stringify(f.tools.slice(0, MAX_FAIL_TOOLS).map(failText));
  else if (f.tools !== undefined && f.tools !== null) env += ',"tools":' + valueJSON(f.tools);
  if (Array.isArray(f.reasons)) env += ',"reasons":' + JSON.stringify(f.reasons.slice(0, MAX_FAIL_TOOLS).map(failText));
  else if (f.reasons !== undefined && f.reasons !== null) env += ',"reasons":' + valueJSON(f.reasons);
  return env + '}';
}

/**
 * Why a failure's surface could not show the question, for a no_surface
 * list (Go: Failure.reason): its detail, its reasons, or the core's message.
 * @param {{detail?: unknown, reasons?: unknown}} f
 * @param {string} message
 */
function failReason(f, message) {
  if (f.detail !== undefined && f.detail !== null && f.detail !== '') return String(f.detail);
  if (Array.isArray(f.reasons) && f.reasons.length > 0) return f.reasons.join('; ');
  return message;
}

/**
 * The "delivery" field as Go's Delivery writes it: ms in whole
 * milliseconds, the other facts when given.
 * @param {{ms?: unknown, client?: unknown, clientVersion?: unknown, mode?: unknown, trigger?: unknown, entrypoint?: unknown}} d
 */
function deliveryJSON(d) {
  if (typeof d !== 'object') return valueJSON(d);
  /** @type {Record<string, unknown>} */
  const o = { ms: typeof d.ms === 'number' && Number.isFinite(d.ms) ? Math.max(0, Math.floor(d.ms)) : d.ms };
  for (const k of /** @type {const} */ (['client', 'clientVersion', 'mode', 'trigger', 'entrypoint'])) {
    if (d[k] !== undefined && d[k] !== null && d[k] !== '') o[k] = d[k];
  }
  return JSON.stringify(o);
}

/** What op "fail" reads of host text (Go: core.MaxFailTextChars, core.MaxFailTools). */
const MAX_FAIL_TEXT_CHARS = 4096;
const MAX_FAIL_TOOLS = 64;

/**
 * The part of host text op "fail" reads: its first MAX_FAIL_TEXT_CHARS code
 * points (a lone surrogate is one, as the core decodes it to one U+FFFD),
 * so the envelope stays small and the bytes stay the same.
 * @param {unknown} text
 */
function failText(text) {
  const s = String(text);
  if (s.length <= MAX_FAIL_TEXT_CHARS) return s;
  let n = 0;
  let i = 0;
  while (i < s.length && n < MAX_FAIL_TEXT_CHARS) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    n++;
  }
  return s.slice(0, i);
}
