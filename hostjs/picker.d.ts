// @askcore/askcore/picker: the keyboard picker for Node, and the terminal
// provider the core's terminal op chooses (the picker or the line mode).
import type { Core, Provider, Question, Call, CallLike, Pick, PickerLayout, Answer, ResolvedAnswer, DeclineReply } from './index.js';
import type { ReadlineProvider } from './readline.js';

/** A readable terminal stream: process.stdin, or a tty.ReadStream on /dev/tty. */
export type TerminalInput = NodeJS.ReadableStream & { isTTY?: boolean; isRaw?: boolean; setRawMode?(raw: boolean): unknown };
/** A writable terminal stream: process.stderr, process.stdout, or a tty.WriteStream on /dev/tty. */
export type TerminalOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
/** The environment the core's terminal op reads (TERM, NO_COLOR, ASKCORE_PLAIN). */
export type TerminalEnv = { [name: string]: string | undefined };

export interface PickerProviderOptions {
  /** The keys: a TTY stream, raw while a picker runs. Default process.stdin. */
  input?: TerminalInput;
  /** Where the picker draws. Default process.stderr. */
  output?: TerminalOutput;
  /** Colour; default: the core's terminal op's verdict for the streams and env (never with NO_COLOR). */
  color?: boolean;
  /** Default process.env. */
  env?: TerminalEnv;
}

/**
 * The keyboard picker (docs/SPEC.md, "Keyboard picker"): draws the core's
 * picker layout for a whole call and reads keys in raw mode (Up/Down, k/j
 * outside the text entry, Ctrl-P, 1-9, Home/End, PgUp/PgDn, Space toggles, Shift-↑/↓ scroll
 * an option's preview (drawn beside or below the list), Ctrl-N edits the
 * question's notes (the pick carries them), typing on
 * the own-answer entry, Enter confirms, in a batch on to the next question,
 * Tab/Shift-Tab switch questions, Esc declines, Ctrl-C aborts). Inline, drawn
 * again on resize; after an answer one line stays: "→ " and the core's
 * summary. One call at a time; the others queue.
 */
export declare class PickerProvider implements Provider {
  constructor(core: Core, options?: PickerProviderOptions);
  /**
   * Resolves to the answer (question.resolve's for the picks: the seam
   * accepts it for this call only), or {decline: true} after Esc. Rejects
   * with the core's error: "interrupted" (Ctrl-C, interrupt()), "eof" (the
   * input ended), "read_failed", "withdrawn" (close()), the signal's reason.
   */
  ask(question: Question, options?: { signal?: AbortSignal }): Promise<ResolvedAnswer | DeclineReply>;
  /** A call asked directly (not through a UserInteraction): the core's answer to the picks. */
  ask(question: Call | { raw: string } | { request: CallLike }, options?: { signal?: AbortSignal }): Promise<Answer | DeclineReply>;
  /** Dismisses the call on screen as Ctrl-C does; queued calls keep their place. Reports whether there was one. */
  interrupt(): boolean;
  /** Rejects every pending and later call with the core's "withdrawn"; a picker on screen is erased and the terminal restored. */
  close(): void;
  /** Writes text on the picker's terminal, above a pending picker (drawn again below it). */
  write(text: string): void;
  /** Calls asked and not yet answered, the one on screen included. */
  readonly pending: number;
}

export declare function createPickerProvider(core: Core, options?: PickerProviderOptions): PickerProvider;

export interface OpenTerminalOptions {
  /** Default process.stdin. */
  input?: TerminalInput;
  /** Default process.stderr. */
  output?: TerminalOutput;
  /** Ask for the line mode (a --plain flag): the screen-reader mode. */
  plain?: boolean;
  /** Default process.env. */
  env?: TerminalEnv;
  /** The line mode's prompt (ReadlineProvider's). */
  prompt?: string;
}

/**
 * The provider the core's terminal op chooses for the streams: the keyboard
 * picker when both are terminals, TERM is not "dumb" and neither `plain`
 * nor ASKCORE_PLAIN asks for the line mode; the readline line mode
 * otherwise, on the same streams.
 */
export declare function openTerminal(core: Core, options?: OpenTerminalOptions): PickerProvider | ReadlineProvider;

/** The facts the core's terminal op decides from, read from the streams and env. */
export declare function terminalFacts(
  input: unknown,
  output: unknown,
  env: TerminalEnv,
  plainFlag?: boolean,
): { stdinTTY: boolean; stderrTTY: boolean; outTTY: boolean; term: string; noColor: string; plain: string; plainFlag: boolean };

/** "ASKCORE_PLAIN". */
export declare const ENV_PLAIN: 'ASKCORE_PLAIN';

/**
 * What the picker calls on Enter: nothing accepts the pick; a string is a
 * message for the person (shown under the question; they stay on it); a
 * throw ends run with that error.
 */
export type PickerCheck = (question: number, pick: PickerPick) => string | null | undefined | void | PromiseLike<string | null | undefined | void>;

/** The core's picker layout (its words: those a host passes to done() and those drawn around the list). */
export type PickerLayoutTexts = PickerLayout;

/** One question's pick as the picker hands it over: `notes` only when the person wrote some (Ctrl-N). */
export type PickerPick = { options: number[]; text: string; notes?: string };

export interface PickerTerminal {
  input: TerminalInput;
  output: TerminalOutput;
  color: boolean;
}

/** The low-level picker: one layout, run once, then done(line). */
export declare class Picker {
  /** Throws a TypeError for a layout that is not the core's (a missing text, no questions, a bad cursor). */
  constructor(terminal: PickerTerminal, layout: PickerLayout | unknown);
  /**
   * Shows the picker and reads keys until every question is confirmed (one
   * pick per question), or rejects: PickerDeclined (Esc), PickerInterrupted
   * (Ctrl-C), PickerInputEnded (the input's end or failure), the signal's
   * reason, what check threw. The picker stays on screen until done().
   */
  run(options?: { check?: PickerCheck; signal?: AbortSignal }): Promise<PickerPick[]>;
  /** Erases the picker and leaves `line` in its place ("" leaves nothing). */
  done(line: string): void;
  /** Milliseconds from run's start to the first frame written. */
  readonly firstPaintMs: number;
  readonly layout: PickerLayoutTexts;
}

export declare class PickerDeclined extends Error {}
export declare class PickerInterrupted extends Error {}
export declare class PickerInputEnded extends Error {
  /** The core's situation: "eof" or "read_failed". */
  readonly situation: 'eof' | 'read_failed' | (string & {});
  readonly detail?: string;
}

/** Checks a layout the way the picker does; returns it, or throws a TypeError. */
export declare function validateLayout(layout: unknown): PickerLayoutTexts;

export type { Pick };
