// Public API of @askcore/askcore (the same for the Node and browser entry points).

/** What load() accepts: nothing (the bundled askcore.wasm), bytes, a compiled module or a fetch Response. */
export type Source = ArrayBuffer | ArrayBufferView | WebAssembly.Module | Response | PromiseLike<ArrayBuffer | ArrayBufferView | WebAssembly.Module | Response>;

export interface LoadOptions {
  /** Receives the lines the guest writes to fd 1/2 (only a guest panic does). Default: console.error. */
  onStderr?: (line: string) => void;
  /** A fresh instance replaces one whose linear memory grew past this many bytes. Default 256 MiB. */
  maxMemoryBytes?: number;
  /** Where the guest's clock and randomness come from (defaults: the platform's own; tests inject faults here). */
  platform?: {
    monotonicNs?: () => bigint;
    realtimeNs?: () => bigint;
    randomFill?: (bytes: Uint8Array) => void;
  };
}

/**
 * Loads the askcore core: compiles the module (cached across calls for the
 * same source), instantiates it and runs its `_initialize`.
 */
export declare function load(source?: Source, options?: LoadOptions): Promise<Core>;

/** The ABI version this host speaks (askcore_abi_version). */
export declare const ABI_VERSION: 1;

/** Key under which answers carry the core's own JSON text. */
export declare const RAW: unique symbol;

/** The JSON text to hand a model for an answer: the core's own bytes when known. */
export declare function answerText(answer: Answer): string;

/** One choice as a model may write it. `desc` is accepted as a synonym of `description`. */
export interface OptionInput {
  label: string;
  value?: string;
  description?: string;
  desc?: string;
  recommended?: boolean;
}

/** An ask_user_question request as a model may write it. */
export interface RequestInput {
  header?: string;
  question: string;
  options?: OptionInput[];
  allowCustom?: boolean;
}

/** One choice after normalization: trimmed, sanitized, `value` always set. */
export interface Option {
  label: string;
  value: string;
  description?: string;
  recommended?: boolean;
}

/** A request after normalization. Optionless questions always allow free text. */
export interface Request {
  header?: string;
  question: string;
  options: Option[];
  allowCustom: boolean;
}

/** A request for the core: an object, or JSON text (passed to the core as it is). */
export type RequestLike = RequestInput | Request | string;

export interface Selected {
  /** Position of the option in the request as given, from 0. */
  index: number;
  label: string;
  value: string;
}

/** The tool result: `answer` is the single source of truth; `selected` only when an option was chosen. */
export interface Answer {
  answer: string;
  selected?: Selected;
  readonly [RAW]?: string;
}

/** What a terminal shows (op "present"). */
export interface Presentation {
  text: string;
  /** Option indices in display order: the option numbered n is order[n-1]. */
  order: number[];
}

/** A JSON Schema object, as the core writes it. */
export type JSONSchema = { [key: string]: unknown };

/** The ACP form (op "elicitation"). */
export interface Elicitation {
  message: string;
  requestedSchema: JSONSchema;
}

/** An ACP client's reply to a form elicitation. */
export interface ElicitationResponse {
  action: 'accept' | 'decline' | 'cancel' | (string & {});
  content?: { [field: string]: unknown };
}

/** The model-facing tool (op "schema"). */
export interface ToolSchema {
  name: 'ask_user_question' | (string & {});
  description: string;
  parameters: JSONSchema;
}

/** A loaded core. Helpers build the envelope, call handle and throw UserInteractionError on ok:false. */
export declare class Core {
  private constructor();
  /** The compiled module, to share with another load(). */
  readonly module: WebAssembly.Module;
  /** The largest input, in bytes, the module accepts. */
  readonly maxInputBytes: number;
  /** Current size of the guest's linear memory, in bytes. */
  readonly memoryBytes: number;
  /** One envelope in, the core's output bytes decoded as UTF-8 out (never re-serialized). */
  handle(input: string | Uint8Array): string;
  /** Like handle, returning a copy of the raw output bytes. */
  handleBytes(input: string | Uint8Array | ArrayBuffer): Uint8Array;
  normalize(request: RequestLike): Request;
  /** The normalized request and its JSON text exactly as the core wrote it. */
  normalizeRaw(request: RequestLike): { request: Request; raw: string };
  schema(): ToolSchema;
  present(request: RequestLike): Presentation;
  /** Resolves one typed line; throws INVALID_ANSWER with a message fit for the re-prompt. */
  resolve(request: RequestLike, input: string): Answer;
  elicitation(request: RequestLike): Elicitation;
  elicitationResult(request: RequestLike, response: ElicitationResponse | string): Answer;
  /** Any text (a model's reply) made safe to show: the core's "sanitize" op. */
  sanitize(text: string): string;
}

export type Code =
  | 'INVALID_REQUEST'
  | 'INVALID_ANSWER'
  | 'NO_PROVIDER'
  | 'DUPLICATE_PROVIDER'
  | 'ASK_ABORTED'
  | 'ASK_TIMEOUT'
  | 'ASK_DECLINED'
  | 'ASK_CANCELLED'
  | 'ASK_FAILED'
  | 'SESSION_NOT_FOUND';

export declare const Codes: { readonly [K in Code]: K };

/** A structured error that survives tool execution as {name, code, message}. */
export declare class HarnessError extends Error {
  constructor(code: Code | (string & {}), message: string, options?: { cause?: unknown });
  code: Code | (string & {});
  toJSON(): { name: string; code: string; message: string };
}

export declare class UserInteractionError extends HarnessError {
  name: 'UserInteractionError';
  static fromJSON(obj: { code?: unknown; message?: unknown }): UserInteractionError;
}

/** A fault of the host itself (a trap in the module, a dead instance), not a rule of the core. */
export declare class HostFaultError extends Error {}

/** Thrown inside the module when the guest calls proc_exit. */
export declare class WasiExit extends Error {
  constructor(code: number);
  code: number;
}

export declare function isUserInteractionError(err: unknown, code?: Code): err is UserInteractionError;

/** Who is asking, so a provider can route the question. */
export interface Identity {
  agentId?: string;
  sessionId?: string;
  toolCallId?: string;
}

/** A normalized request on its way to a person. */
export interface Question {
  request: Request;
  /** The normalized request as the core wrote it: pass it back to the core unchanged. */
  raw: string;
  from: Identity;
}

/**
 * Reaches a person. `signal` aborts when the ask is aborted, times out or the
 * provider is disposed (its reason is the UserInteractionError the asker got).
 */
export interface Provider {
  ask(question: Question, options: { signal: AbortSignal }): Answer | Promise<Answer>;
}
export type ProviderFunction = Provider['ask'];

export interface AskOptions {
  /** Aborting rejects with ASK_ABORTED; an already-aborted signal never reaches the provider. */
  signal?: AbortSignal;
  from?: Identity;
  /** Milliseconds until ASK_TIMEOUT. Off (0) by default: nothing is ever chosen on a person's behalf. */
  timeoutMs?: number;
}

export declare class UserInteraction {
  constructor(core: Core, options?: { timeoutMs?: number });
  readonly core: Core;
  readonly hasProvider: boolean;
  /** Registers the one provider; throws DUPLICATE_PROVIDER while another is registered. Returns dispose. */
  register(provider: Provider | ProviderFunction): () => void;
  /** Normalizes `request` through the core and asks the provider. */
  ask(request: RequestLike, options?: AskOptions): Promise<Answer>;
}

export interface ToolContext extends AskOptions {
  agentId?: string;
  sessionId?: string;
  toolCallId?: string;
}

export interface AskUserQuestionTool {
  name: string;
  description: string;
  parameters: JSONSchema;
  /** `args` are the model's arguments, an object or their JSON text. */
  execute(args: RequestLike | unknown, ctx?: ToolContext): Promise<Answer>;
}

export declare function askUserQuestionTool(interaction: UserInteraction): AskUserQuestionTool;
