// Public API of @askcore/askcore (the same for the Node and browser entry points).

// These declarations need nothing beyond the ECMAScript library (lib
// es2023): no DOM lib, no @types/node. Where the platform's own types exist
// (WebAssembly.Module, AbortSignal) they are used; otherwise the minimal
// shapes below stand in.

declare const wasmModuleBrand: unique symbol;

/**
 * A compiled askcore.wasm: a WebAssembly.Module at run time (core.module,
 * to share with another load()). Declared here, so that no WebAssembly
 * namespace (the DOM lib's) is needed.
 */
export interface WasmModule {
  readonly [wasmModuleBrand]: 'WebAssembly.Module';
}

/** The platform's WebAssembly.Module type where its lib declares one (the DOM lib); never otherwise. */
type PlatformModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer M } } } ? M : never;

/** A fetch Response as far as load() reads one (a Response of the DOM lib or of @types/node is one). */
export interface ResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The bytes of askcore.wasm. */
export type WasmBytes = ArrayBuffer | ArrayBufferView;

/**
 * What load() accepts: bytes, a compiled module, a fetch Response, or a
 * promise of one of these (omit it for the bundled askcore.wasm).
 */
export type Source =
  | WasmBytes
  | WasmModule
  | PlatformModule
  | ResponseLike
  | PromiseLike<WasmBytes | WasmModule | PlatformModule | ResponseLike>;

/**
 * What load() refuses although its lib's WebAssembly.Module (an empty
 * interface in the DOM lib) would let it through: a string, a number, a URL
 * (pass load(fetch(url)) or the file's bytes), or a promise of one.
 */
type NotASource<S> = S extends string | number | bigint | boolean | symbol
  ? true
  : S extends { readonly href: string; readonly searchParams: unknown }
    ? true
    : S extends PromiseLike<infer T>
      ? NotASource<T>
      : false;

/** The parameter type of load(): S itself, or S marked with why it is not a source. */
type SourceParameter<S> = true extends NotASource<S>
  ? S & { readonly 'load(source): not a source; pass bytes, a WebAssembly.Module, a Response or a promise of one (for a URL: load(fetch(url)))': never }
  : S;

/** An AbortSignal: the platform's where its lib declares one (the DOM lib, @types/node), else the part a provider uses. */
export type AbortSignalLike = typeof globalThis extends { AbortSignal: { prototype: infer T } }
  ? T
  : {
      readonly aborted: boolean;
      readonly reason: unknown;
      addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
      removeEventListener(type: 'abort', listener: () => void): void;
      throwIfAborted(): void;
    };

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
export declare function load<S extends Source = never>(source?: SourceParameter<S> | null, options?: LoadOptions): Promise<Core>;

/** The ABI version this host speaks (askcore_abi_version). */
export declare const ABI_VERSION: 1;

/** Key under which answers carry the core's own JSON text. */
export declare const RAW: unique symbol;

/** The JSON text to hand a model for an answer: the core's own bytes (RAW) when known. */
export declare function answerText(answer: Answer | QuestionAnswer): string;

/**
 * The brand of an answer question.resolve returned (see ResolvedAnswer).
 * Declared for the type checker only: there is no such value at run time.
 */
declare const resolvedFor: unique symbol;
/** Only what is marked `export` is exported (not resolvedFor). */
export {};

/**
 * The JSON text to hand a model for whatever a tool call threw (pass what
 * a catch gave you); never throws. A HarnessError the core wrote: its own
 * bytes (`raw`). Anything else: the core's "tool_failed" error
 * ({"name":"ToolError","code":"TOOL_FAILED",...}, as Go's
 * askcore.ErrorJSON), quoting it (`CODE: message` for a HarnessError built
 * in JS, the message of an Error, String(value) otherwise); a
 * HostFaultError is the core's "engine_fault". The words come from `core`,
 * else from the last core loaded (with none at all:
 * {"name":"ToolError","code":"TOOL_FAILED","message":"a tool failed"}).
 */
export declare function errorText(err: unknown, core?: Core): string;

/** One choice as a model may write it (or a bare label). `desc` is accepted as a synonym of `description`. */
export interface OptionInput {
  label: string;
  value?: string;
  description?: string;
  desc?: string;
  /** Shown while the option has the focus: Markdown read as text (code, an ASCII mockup), for options compared by looking. */
  preview?: string;
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
  /** Tabs expanded, made safe to show, first-line indentation kept. */
  preview?: string;
  recommended?: true;
}

/** A question after normalization. Optionless questions always allow free text. */
export interface Request {
  header?: string;
  question: string;
  options: Option[];
  allowCustom: boolean;
  /** Present (true) only for a multi-select question, so a single-select request keeps its bytes. */
  multiSelect?: true;
}

/** A batch after normalization. */
export interface Batch {
  questions: Request[];
}

/** A normalized call: one question or a batch. */
export type NormalizedCall = Request | Batch;

/**
 * A normalized call as Go's askcore.Call: the core's bytes and their decoded
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
  /** What the person added beside the choice, when they did. */
  notes?: string;
  readonly [RAW]?: string;
}

/**
 * A multi-select answer: the chosen options' values in request order, then
 * the typed free text as one last element; `selected` lists the options only.
 */
export interface MultiAnswer {
  answers: string[];
  selected: Selected[];
  /** What the person added beside the choice, when they did. */
  notes?: string;
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
  /** The person's notes beside the choice. */
  notes?: string;
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
  preview?: string;
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
  /** The key help: its parts separated by " · " (a picker wraps it between them). */
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
  /** After the count of entries (or preview lines) scrolled out of view. */
  more: string;
  /** The lines a host leaves after Esc and after Ctrl-C, where the summary would go. */
  declined: string;
  interrupted: string;
  /** The label of the notes line under the question (Ctrl-N). */
  notes: string;
  /** The key help while notes are edited. */
  notesHelp: string;
  /** On the preview box's top border. */
  previewTitle: string;
  /** On the preview box's bottom border while the preview scrolls. */
  previewHelp: string;
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
  | 'tool_cancelled'
  | 'not_shown'
  | 'no_surface'
  | 'answered_elsewhere';

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
  /** Why each surface could not show the question, for "no_surface". */
  reasons?: string[];
}

/**
 * What a host knows about how a form (or URL-mode) request went, for the
 * core's not-shown rule: a decline or cancel sooner than 250 ms, or in a
 * turn the protocol says nobody runs, was not a person's.
 */
export interface Delivery {
  /** Milliseconds from sending the request to its reply. */
  ms: number;
  /** The client's clientInfo name and version (MCP), or the ACP client's. */
  client?: string;
  clientVersion?: string;
  /** "url": a URL-mode request to open the answer page. Default "form". */
  mode?: 'form' | 'url';
  /** The protocol's word on who started the turn (Codex: _meta.turn_trigger "exec"). */
  trigger?: string;
  /**
   * How the client says, in the environment of a process it started, that
   * it runs: Claude Code's CLAUDE_CODE_ENTRYPOINT ("sdk-cli" is claude -p,
   * which cannot show a form). Only a host the client started knows it.
   */
  entrypoint?: string;
}

/** One reply to a call's form, for core.formReply / question.judgeForm. */
export interface FormRound {
  /** The client's reply as it sent it: {action, content}. */
  response: ElicitationResponse | unknown;
  /** The round of the step whose form this replies to; 0 (default) for the first form. */
  round?: number;
  /** The protocol of the form sent again, if it must be. */
  for?: 'acp' | 'mcp';
  delivery?: Delivery;
}

/** What a host does next with a form reply (op "form_reply"). */
export type FormStep =
  | { next: 'answer'; answer: Answer }
  | { next: 'ask_again'; form: Elicitation; round: number; roundsLeft: number }
  | { next: 'end' | 'next_surface'; error: HarnessError };

/** One way to reach the person, for firstReply. */
export interface Surface {
  /** What the core's messages call it: "the form", "the answer page". */
  name?: string;
  provider: Provider | ProviderFunction;
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
  readonly module: WasmModule;
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
  /** The normalized call as Go's askcore.Call: raw, questions, batch, request. */
  normalizeRaw(call: CallLike): Call;
  /**
   * The model-facing tool (op "schema"). With {strict: true}, the variant
   * for OpenAI's strict function calling: every object closed, every
   * property required, null for a field left out (the core reads null as
   * absent), the questions always in `questions` (one entry for one
   * question), so that the answer is always a BatchAnswer.
   */
  schema(options?: { strict?: boolean }): ToolSchema;
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
  /** The form, for ACP (default) or MCP clients; `client` (a clientInfo name) leaves out what that client cannot show or submit. */
  elicitation(call: CallLike, options?: { for?: 'acp' | 'mcp'; client?: string }): Elicitation;
  /** What a host does next with a client's reply to the form: answer, ask again (up to 3 times), end, or try the next surface. */
  formReply(call: CallLike, reply: FormRound): FormStep;
  /** The words of a progress message for a question that has waited `ms` milliseconds, with the URL where the person can answer. */
  progress(progress: { ms: number; url?: string }): string;
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

/** The person typed one line per question of the call, in order (read by the rules of a typed line). */
export interface LinesReply {
  lines: string[];
}

/** A keyboard picker's reply: one pick per question, in order. */
export interface PicksReply {
  picks: Pick[];
}

/** A client's reply to the call's form (core.elicitation), as the client sent it; the core judges it whole. */
export interface FormReply {
  form: ElicitationResponse | unknown;
}

/** The person declined to answer (Esc in a picker, a decline button): ASK_DECLINED. */
export interface DeclineReply {
  decline: true;
}

/**
 * An answer question.resolve returned: accepted as a reply by that very
 * call only (another call's is the core's "stale_answer"). An answer built
 * by hand, copied, decoded from JSON or returned by a Core helper has no
 * such brand, and the seam refuses it ("not_a_reply").
 */
export type ResolvedAnswer = Answer & { readonly [resolvedFor]: Question };

/**
 * What a provider hands back: what the person gave, exactly one of
 * {lines}, {picks}, {form} or {decline: true}, which the seam has the core
 * resolve into the answer; or the answer question.resolve returned for
 * this very call. Anything else (a hand-made answer, a Date, a string, the
 * result of core.fail) is refused with the core's ASK_FAILED "not_a_reply".
 */
export type Reply = LinesReply | PicksReply | FormReply | DeclineReply | ResolvedAnswer;

/**
 * A normalized call on its way to a person, as Go's askcore.Call: the Call
 * (raw, questions, batch, request), who asks, and the core's ops a
 * provider needs to judge what the person gives. Passing it to the core's
 * helpers (core.present(question, i)) passes the core's own bytes back.
 */
export interface Question extends Call {
  from: Identity;
  /**
   * Judges one line typed for question `index` (0 for a single question):
   * the core's one-line summary of what it chose (to echo), or throws
   * INVALID_ANSWER with the message for the person (show it, ask again).
   * That message is never for the model: hand the lines back ({lines}).
   */
  checkLine(index: number, line: string): string;
  /** checkLine for a keyboard picker's pick. */
  checkPick(index: number, pick: Pick): string;
  /**
   * The answer to this call for `reply`, as the seam would resolve it, for
   * a provider that shows the answer before handing it back (return it: it
   * is accepted for this call only). Throws what the seam would reject
   * with: ASK_DECLINED, ASK_CANCELLED, INVALID_ANSWER worded for the model
   * (the core's "invalid_reply"), ASK_FAILED ("not_a_reply", "stale_answer").
   */
  resolve(reply: Reply): ResolvedAnswer;
  /** The core the question was normalized by. */
  readonly core: Core;
  /** The form for this question, for ACP (default) or MCP clients, and for a known client (its clientInfo name). */
  form(options?: { for?: 'acp' | 'mcp'; client?: string }): Elicitation;
  /**
   * What to do next with a client's reply to this question's form: "answer"
   * (return step.answer: accepted for this question), "ask_again" (send
   * step.form, judge its reply with step.round), "end" or "next_surface"
   * (throw step.error).
   */
  judgeForm(reply: FormRound): FormStep & { answer?: ResolvedAnswer };
}

/**
 * Reaches a person and hands back what they gave (a Reply); the seam has
 * the core resolve it. `signal` aborts when the ask is aborted, times out or
 * the provider is disposed (its reason is the error the asker got).
 * Resolving with nothing (undefined, null) is the core's "no_answer", with
 * anything but a Reply its "not_a_reply" (both ASK_FAILED). Rejecting with
 * an error the core wrote (core.fail, question.resolve) passes it on as it
 * is; a HostFaultError is "engine_fault"; anything else, a HarnessError
 * built in JS included, "provider_failed" quoting it.
 */
export interface Provider {
  ask(question: Question, options: { signal: AbortSignalLike }): Reply | PromiseLike<Reply>;
}
export type ProviderFunction = Provider['ask'];

export interface AskOptions {
  /** Aborting rejects with ASK_ABORTED at once (the reason's message quoted unless it is a plain AbortError); an already-aborted signal never reaches the core or the provider. */
  signal?: AbortSignalLike;
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
   * set): INVALID_REQUEST, NO_PROVIDER, ASK_ABORTED, ASK_TIMEOUT,
   * ASK_DECLINED, ASK_CANCELLED, INVALID_ANSWER (a reply that does not
   * answer), the core's errors the provider threw, ASK_FAILED.
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

/**
 * A provider that asks through every surface at once: the first to end the
 * ask wins, the others are withdrawn (their signal aborts with the core's
 * answered_elsewhere error); a surface that could not show the question
 * drops out; when all dropped out, the core's no_surface error (ASK_FAILED).
 */
export declare function firstReply(surfaces: Surface[]): Provider;
