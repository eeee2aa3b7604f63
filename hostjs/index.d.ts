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

/** The JSON text to hand a model for an answer: the core's own bytes (RAW) when known. */
export declare function answerText(answer: Answer | QuestionAnswer): string;

/** The JSON text to hand a model for an error: the core's own bytes (`raw`) when known, else {name, code, message}. */
export declare function errorText(err: HarnessError): string;

/** One choice as a model may write it (or a bare label). `desc` is accepted as a synonym of `description`. */
export interface OptionInput {
  label: string;
  value?: string;
  description?: string;
  desc?: string;
  recommended?: boolean;
}

/** One question as a model may write it. */
export interface QuestionInput {
  header?: string;
  question: string;
  options?: Array<OptionInput | string>;
  allowCustom?: boolean;
  /** The person picks one or more options (needs options). Default false. */
  multiSelect?: boolean;
}

/** A batch as a model may write it: 1 to 10 questions, answered whole or failed whole. */
export interface BatchInput {
  questions: QuestionInput[];
}

/** An ask_user_question call as a model may write it. */
export type CallInput = QuestionInput | BatchInput;

/** @deprecated v1 name of QuestionInput. */
export type RequestInput = QuestionInput;

/** One choice after normalization: trimmed, sanitized, `value` always set. */
export interface Option {
  label: string;
  value: string;
  description?: string;
  recommended?: true;
}

/** A question after normalization. Optionless questions always allow free text. */
export interface Request {
  header?: string;
  question: string;
  options: Option[];
  allowCustom: boolean;
  /** Present (true) only for a multi-select question, so a v1 request keeps its v1 bytes. */
  multiSelect?: true;
}

/** A batch after normalization. */
export interface Batch {
  questions: Request[];
}

/** A normalized call: one question or a batch. */
export type NormalizedCall = Request | Batch;

/**
 * A normalized call as Go's engine.Call: the core's bytes and their decoded
 * form. Passing it (or its `request`) back to the core passes the core's own
 * bytes.
 */
export interface Call {
  /** The normalized call as the core wrote it (op "normalize"). */
  raw: string;
  /** The call's questions, decoded: exactly one unless `batch`. */
  questions: Request[];
  /** A {"questions":[...]} call, answered with {"answers":[...]}. */
  batch: boolean;
  /** The normalized call decoded: the question, or {questions}. */
  request: NormalizedCall;
}

/**
 * A call for the core. A string is the model's argument text exactly as the
 * model wrote it (the core parses it: envelope field "arguments"; never
 * pasted into JSON). An object a JS caller built is serialized with
 * JSON.stringify; a Call, a Question or a normalized call the core returned
 * goes back as the core's own bytes.
 */
export type CallLike = string | CallInput | NormalizedCall | Call | Question;

/** @deprecated v1 name of CallLike. */
export type RequestLike = CallLike;

export interface Selected {
  /** Position of the option in the request as given, from 0. */
  index: number;
  label: string;
  value: string;
}

/** A single-select answer: `answer` is the single source of truth; `selected` only when an option was chosen. */
export interface SingleAnswer {
  answer: string;
  selected?: Selected;
  readonly [RAW]?: string;
}

/**
 * A multi-select answer: the chosen options' values in request order, then
 * the typed free text as one last element; `selected` lists the options only.
 */
export interface MultiAnswer {
  answers: string[];
  selected: Selected[];
  readonly [RAW]?: string;
}

/** One question's own answer (resolve with an index; each entry of a batch's answer). */
export type QuestionAnswer = SingleAnswer | MultiAnswer;

/** One entry of a batch's answer: the question's text, then its answer's fields. */
export type BatchAnswerEntry =
  | ({ question: string } & Omit<SingleAnswer, typeof RAW>)
  | ({ question: string } & Omit<MultiAnswer, typeof RAW>);

/** A batch's answer, in question order. */
export interface BatchAnswer {
  answers: BatchAnswerEntry[];
  readonly [RAW]?: string;
}

/** What the model receives for a call: the core's answer object (its bytes under RAW: answerText). */
export type Answer = SingleAnswer | MultiAnswer | BatchAnswer;

/**
 * What a keyboard picker sends for one question: option positions in the
 * request, and the person's own text. Single-select: a non-empty text wins,
 * else exactly one option; multi-select: the options, then the text.
 */
export interface Pick {
  options?: number[];
  text?: string;
}

/** One question's input to resolve: a typed line, or a pick. */
export type Input = string | Pick;

/** What a terminal shows for one question (op "present"). */
export interface Presentation {
  text: string;
  /** Option indices in display order: the option numbered n is order[n-1]. */
  order: number[];
}

/** One entry of a picker question: an option, in display order. */
export interface PickerEntry {
  /** Position of the option in the request. */
  index: number;
  label: string;
  description?: string;
  recommended?: true;
}

/** One question as a keyboard picker draws it. */
export interface PickerQuestion {
  /** "Question 2 of 3": batches only. */
  position?: string;
  header?: string;
  question: string;
  multiSelect: boolean;
  entries: PickerEntry[];
  /** The label of the own-answer entry drawn after the options, when free text is allowed. */
  custom?: string;
  /** The entry the cursor starts on. */
  cursor: number;
  /** Option positions that start toggled on (a multi-select question's recommended options). */
  toggled: number[];
  /** One line of key help. */
  help: string;
}

/** What a keyboard picker shows (op "picker"): it only draws these and reads keys; picks go to resolve. */
export interface PickerLayout {
  questions: PickerQuestion[];
  /** The mark after a recommended label. */
  recommended: string;
  /** The toggle marks. */
  on: string;
  off: string;
}

/** A JSON Schema object, as the core writes it. */
export type JSONSchema = { [key: string]: unknown };

/** The form (op "elicitation"), for ACP and MCP clients. */
export interface Elicitation {
  message: string;
  requestedSchema: JSONSchema;
}

/** A client's reply to a form elicitation. */
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

/** A situation that ends an ask outside the request rules (op "fail"). */
export type Situation =
  | 'no_provider'
  | 'duplicate_provider'
  | 'aborted'
  | 'withdrawn'
  | 'timeout'
  | 'no_answer'
  | 'not_a_reply'
  | 'stale_answer'
  | 'invalid_reply'
  | 'provider_failed'
  | 'engine_fault'
  | 'interrupted'
  | 'eof'
  | 'input_closed'
  | 'read_failed'
  | 'declined'
  | 'no_terminal'
  | 'session_not_found'
  | 'no_form_support'
  | 'client_error'
  | 'client_no_result'
  | 'client_disconnected'
  | 'client_reply_invalid'
  | 'stopped'
  | 'usage'
  | 'request_read_failed'
  | 'unknown_tool'
  | 'tool_failed'
  | 'tool_cancelled';

/** One situation with its particulars; empty ones are left out of the envelope. */
export interface Failure {
  situation: Situation | (string & {});
  /** Host text the message quotes (sanitized to one line and cut by the core): a reason, an error. */
  detail?: string;
  /** The timeout in whole milliseconds, for "timeout". */
  ms?: number;
  /** The tool called, and the tools available, for the ToolError situations. */
  tool?: string;
  tools?: string[];
}

/** Where a terminal front door runs (op "terminal"); absent facts are false or empty. */
export interface TerminalFacts {
  stdinTTY?: boolean;
  stderrTTY?: boolean;
  /** The writer to decorate is a terminal. */
  outTTY?: boolean;
  /** $TERM */
  term?: string;
  /** $NO_COLOR */
  noColor?: string;
  /** $ASKCORE_PLAIN */
  plain?: string;
  /** --plain was given. */
  plainFlag?: boolean;
}

/** What a terminal front door does: the keyboard picker or line mode, colour or not. */
export interface TerminalMode {
  picker: boolean;
  color: boolean;
}

/**
 * A loaded core. Helpers build the envelope, call handle, and throw the
 * core's error (a UserInteractionError with `raw`) on ok:false.
 */
export declare class Core {
  private constructor();
  /** The compiled module, to share with another load(). */
  readonly module: WebAssembly.Module;
  /** The largest input, in bytes, the module accepts (a longer one gets the core's own verdict, written by askcore_oversized). */
  readonly maxInputBytes: number;
  /** Current size of the guest's linear memory, in bytes. */
  readonly memoryBytes: number;
  /** One envelope in, the core's output bytes decoded as UTF-8 out (never re-serialized). */
  handle(input: string | Uint8Array): string;
  /** Like handle, returning a copy of the raw output bytes. */
  handleBytes(input: string | Uint8Array | ArrayBuffer): Uint8Array;
  /** The normalized call (the question, or {questions}); its bytes under RAW. */
  normalize(call: CallLike): NormalizedCall & { readonly [RAW]?: string };
  /** The normalized call as Go's engine.Call: raw, questions, batch, request. */
  normalizeRaw(call: CallLike): Call;
  schema(): ToolSchema;
  /** What a terminal shows for question `index` (default 0). */
  present(call: CallLike, index?: number): Presentation;
  /**
   * Answers question `index` (required for a batch) from a typed line or a
   * pick: that question's own answer. Throws INVALID_ANSWER with a message
   * fit for the re-prompt.
   */
  resolve(call: CallLike, input: Input, index?: number): QuestionAnswer;
  /** Answers the whole call from one input per question: the answer the model receives. */
  resolveAll(call: CallLike, inputs: Input[]): Answer;
  /** What a keyboard picker shows. */
  picker(call: CallLike): PickerLayout;
  /** One line per question saying what `answer` chose; with `index`, `answer` is that question's own answer. */
  summary(call: CallLike, answer: Answer | QuestionAnswer, index?: number): string;
  elicitation(call: CallLike): Elicitation;
  /** The call's answer to a client's form response (serialized with JSON.stringify). */
  elicitationResult(call: CallLike, response: ElicitationResponse | unknown): Answer;
  /** The core's error for a situation, returned (not thrown) with `raw` set. */
  fail(failure: Failure): HarnessError;
  /** What a terminal front door does: the host reads the facts, the core decides. */
  terminal(facts?: TerminalFacts): TerminalMode;
  /** Any text (a model's reply) made safe to show; with {as: "title"}, one line, cut. */
  sanitize(text: string, options?: { as?: 'text' | 'title' }): string;
  /** sanitize(text, {as: "title"}). */
  sanitizeTitle(text: string): string;
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
  constructor(code: Code | (string & {}), message: string, options?: { cause?: unknown; raw?: string });
  code: Code | (string & {});
  /** The error object exactly as the core wrote it (errorText); undefined for an error built in JS. Not enumerable. */
  readonly raw: string | undefined;
  toJSON(): { name: string; code: string; message: string };
}

export declare class UserInteractionError extends HarnessError {
  name: 'UserInteractionError';
  /** The error of an ok:false envelope (a ToolError gives a HarnessError named "ToolError"). */
  static fromJSON(obj: { name?: unknown; code?: unknown; message?: unknown }, raw?: string): HarnessError;
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

/**
 * A normalized call on its way to a person, as Go's interaction.Question:
 * the Call (raw, questions, batch, request) and who asks. Pass it to the
 * core's helpers (core.resolveAll(question, lines)) to pass the core's own
 * bytes back.
 */
export interface Question extends Call {
  from: Identity;
}

/**
 * Reaches a person. `signal` aborts when the ask is aborted, times out or the
 * provider is disposed (its reason is the error the asker got). Resolve with
 * the core's answer; resolving with nothing (undefined, null) is the core's
 * "no_answer" (ASK_FAILED). Rejecting with one of the core's errors passes it
 * on as it is; a HostFaultError is "engine_fault", anything else
 * "provider_failed" quoting its message.
 */
export interface Provider {
  ask(question: Question, options: { signal: AbortSignal }): Answer | Promise<Answer>;
}
export type ProviderFunction = Provider['ask'];

export interface AskOptions {
  /** Aborting rejects with ASK_ABORTED at once (the reason's message quoted unless it is a plain AbortError); an already-aborted signal never reaches the core or the provider. */
  signal?: AbortSignal;
  from?: Identity;
  /** Milliseconds until ASK_TIMEOUT, however long (timers are chained past setTimeout's 24.8 days). Off (0) by default: nothing is ever chosen on a person's behalf. */
  timeoutMs?: number;
}

export declare class UserInteraction {
  constructor(core: Core, options?: { timeoutMs?: number });
  readonly core: Core;
  readonly hasProvider: boolean;
  /** Registers the one provider; throws DUPLICATE_PROVIDER while another is registered. Returns dispose. */
  register(provider: Provider | ProviderFunction): () => void;
  /**
   * Has the core parse and normalize `args` (the model's argument text, or
   * an object) and asks the provider. Rejects with the core's error (`raw`
   * set): INVALID_REQUEST, NO_PROVIDER, ASK_ABORTED, ASK_TIMEOUT, the
   * provider's own structured error, ASK_FAILED.
   */
  ask(args: CallLike, options?: AskOptions): Promise<Answer>;
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
  /** `args` are the model's arguments: their text exactly as the model wrote it (the core parses it), or an object. */
  execute(args: CallLike | unknown, ctx?: ToolContext): Promise<Answer>;
}

export declare function askUserQuestionTool(interaction: UserInteraction): AskUserQuestionTool;
