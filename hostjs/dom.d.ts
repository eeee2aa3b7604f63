// @askcore/askcore/dom: a provider that asks in a web page's DOM.
import type { Core, Provider, Question, Call, Pick, PicksReply, DeclineReply, Identity } from './index.js';

/** The page's own words around the core's texts. */
export interface DomLabels {
  /** The submit button. Default "Submit". */
  submit?: string;
  /** The decline button. Default "Decline". */
  decline?: string;
  /** The notes field, when the core's form gives no title for it. Default "Notes (optional)". */
  notes?: string;
}

export interface DomProviderOptions {
  labels?: DomLabels;
  /**
   * Called with what the person gave before the ask resolves with it (a page
   * that sends the reply to a server). Rejecting shows the error's message on
   * the form and keeps it open; resolving to a non-empty string shows that
   * string instead of the core's summary.
   */
  submit?: (question: DomQuestion, reply: PicksReply | DeclineReply) => unknown;
  /** Focus the first question of a call as it appears (unless the focus is in another of the provider's forms). Default true. */
  focus?: boolean;
  /** The document to build elements in. Default the element's. */
  document?: Document;
}

/** An abort reason saying the call was answered elsewhere, and with what. */
export interface DomAnswered extends Error {
  answered: PicksReply | DeclineReply;
}

/** What ask accepts: what UserInteraction hands a provider, or a core.normalizeRaw result (optionally with `from`). */
export type DomQuestion = Question | (Call & { from?: Identity });

/**
 * Renders each call as a form in `element`, from the core's picker op (texts,
 * display order, defaults, previews) with native controls: a fieldset and
 * legend per question, radio buttons or checkboxes, a text field for the
 * person's own answer and one for notes. Keys (docs/SPEC.md, "Keyboard
 * picker"): Up/Down or k/j move, 1-9 jump, Space toggles, Enter confirms a
 * question (in a batch: on to the next; the call is submitted after the
 * last), Ctrl-Enter submits, Esc declines; Tab follows the page. Each pick is
 * judged by the core (checkPick) and its INVALID_ANSWER message shown under
 * the question. Model text is always set as text. Style it with dom.css.
 */
export declare class DomProvider implements Provider {
  constructor(core: Core, element: Element, options?: DomProviderOptions);
  /**
   * Resolves to {picks} (one per question, each accepted by the core) or
   * {decline: true}; rejects with the core's "aborted" error when the signal
   * aborts (the form shows the reason's message), "input_closed" after close().
   * A reason with `answered` (what the person gave on another surface, as a
   * {@link DomAnswered}) makes the form show that answer as its outcome: the
   * chosen options marked and only them, the typed text and the notes, the
   * form answered (or declined), its message a status, not an error.
   */
  ask(question: DomQuestion, options?: { signal?: AbortSignal }): Promise<PicksReply | DeclineReply>;
  /** Rejects every call on the page with the core's "input_closed"; later calls fail at once. */
  close(): void;
  /** Calls on the page and not yet answered. */
  readonly pending: number;
}

export declare function createDomProvider(core: Core, element: Element, options?: DomProviderOptions): DomProvider;

export type { Pick };
