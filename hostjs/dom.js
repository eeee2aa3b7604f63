// @askcore/askcore/dom: a provider that asks in a web page. It renders a
// call (a question or a batch) from the core's ops into an element of the
// page with native form controls (a fieldset and legend per question, radio
// buttons, checkboxes, text fields), takes the keyboard picker's keys
// (docs/SPEC.md, "Keyboard picker") and the mouse, has the core judge each
// question's pick (question.checkPick: its INVALID_ANSWER message is shown
// under the question), and hands back what the person gave: {picks} or
// {decline: true}. The seam has the core resolve it.
//
// Every text the model wrote is set with textContent, never parsed as HTML;
// the provider runs no inline script, sets no inline style and fetches
// nothing (dom.css is the stylesheet, light and dark). It works under a
// Content-Security-Policy of script-src 'self' with Trusted Types required.

import { abortedError } from './lib/interaction.js';

/** The words of the page around the core's texts (the core has no words for buttons). */
const DEFAULT_LABELS = Object.freeze({
  submit: 'Submit',
  decline: 'Decline',
  notes: 'Notes (optional)',
});

let nextId = 0;

/**
 * The public types are declared once, in dom.d.ts and index.d.ts.
 * @typedef {import('./index.js').Pick} Pick
 * @typedef {import('./index.js').PicksReply | import('./index.js').DeclineReply} DomReply
 * @typedef {import('./dom.js').DomQuestion} DomQuestion
 * @typedef {import('./dom.js').DomLabels} DomLabels
 * @typedef {import('./dom.js').DomProviderOptions} DomProviderOptions
 */

/**
 * One question's controls, built by renderQuestion.
 * @typedef {{i: number, multi: boolean, fieldset: HTMLFieldSetElement, entries: HTMLInputElement[],
 *   customToggle: HTMLInputElement | null, customText: HTMLInputElement | null, notes: HTMLInputElement,
 *   error: HTMLElement, summary: HTMLElement, previews: Map<HTMLInputElement, HTMLElement>,
 *   previewPane: HTMLElement | null}} QuestionView
 */

export class DomProvider {
  /** @type {import('./lib/core.js').Core} */ #core;
  /** @type {Element} */ #root;
  /** @type {Required<DomLabels>} */ #labels;
  /** @type {DomProviderOptions['submit']} */ #submit;
  #focus;
  /** @type {Document} */ #doc;
  /** @type {Set<{end: (err: unknown, shown?: string) => void}>} */ #open = new Set();
  #closed = false;

  /**
   * @param {import('./lib/core.js').Core} core
   * @param {Element} element where the calls are rendered, one form each, in the order they arrive
   * @param {DomProviderOptions} [options]
   */
  constructor(core, element, options = {}) {
    if (!core || typeof core.picker !== 'function') throw new TypeError('createDomProvider(core, element): core is a loaded core');
    if (!element || typeof element.appendChild !== 'function') throw new TypeError('createDomProvider(core, element): element is a DOM element');
    this.#core = core;
    this.#root = element;
    this.#labels = { ...DEFAULT_LABELS, ...(options.labels ?? {}) };
    this.#submit = options.submit;
    this.#focus = options.focus ?? true;
    this.#doc = options.document ?? element.ownerDocument ?? document;
  }

  /** Calls on the page and not yet answered. */
  get pending() {
    return this.#open.size;
  }

  /**
   * Rejects every call on the page with the core's "input_closed" and
   * leaves its form disabled, with that message; later calls are rejected
   * at once.
   */
  close() {
    this.#closed = true;
    const err = this.#core.fail({ situation: 'input_closed' });
    for (const job of [...this.#open]) job.end(err);
  }

  /**
   * Renders `question` (what UserInteraction hands a provider, or a
   * core.normalizeRaw result) as a form in the element, and resolves to
   * what the person gave: {picks} (one per question, each accepted by the
   * core) or {decline: true}. Rejects with the core's "aborted" error when
   * the signal aborts (the form says why: the reason's message).
   * @param {DomQuestion} question
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<DomReply>}
   */
  ask(question, options = {}) {
    const { signal } = options;
    const core = this.#core;
    if (signal?.aborted) return Promise.reject(abortedError(core, signal));
    if (this.#closed) return Promise.reject(core.fail({ situation: 'input_closed' }));
    if (!question || typeof question.raw !== 'string' || !Array.isArray(question.questions)) {
      return Promise.reject(new TypeError('ask(question): question is a Question or a core.normalizeRaw result'));
    }
    return new Promise((resolve, reject) => {
      const layout = core.picker(question);
      const form = this.#render(question, layout);
      const had = this.#root.contains(this.#doc.activeElement) && this.#doc.activeElement !== this.#root;
      this.#root.appendChild(form.element);
      let settled = false;
      const job = {
        /** @param {unknown} err @param {string} [shown] @param {string} [state] */
        end: (err, shown = messageOf(err), state = 'ended') => {
          if (settled) return;
          settle(state, shown);
          reject(err);
        },
      };
      /**
       * @param {string} state
       * @param {string} text
       */
      const settle = (state, text) => {
        settled = true;
        this.#open.delete(job);
        signal?.removeEventListener('abort', onAbort);
        const focused = form.element.contains(this.#doc.activeElement);
        form.finish(state, text);
        if (focused) this.#focusNext();
      };
      // The form says why it ended: the reason's own message (the page's
      // words, or an error the core wrote), else the core's.
      // The core could not judge a pick (an engine fault): the ask ends
      // with its error.
      form.onFail = (err) => job.end(err);
      // A reason that carries what the person gave on another surface (an
      // inbox on another device) makes the form show that answer as the
      // outcome it is; the ask still rejects: this provider got no reply.
      const onAbort = () => {
        const err = abortedError(core, signal);
        const r = signal?.reason;
        const shown = r instanceof Error && r.name !== 'AbortError' && r.message ? r.message : err.message;
        const given = r !== null && typeof r === 'object' ? /** @type {any} */ (r).answered : undefined;
        if (given !== null && typeof given === 'object') {
          form.show(given);
          job.end(err, shown, 'decline' in given ? 'declined' : 'answered');
        } else {
          job.end(err, shown);
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#open.add(job);
      if (this.#focus && !had) form.focusQuestion(0);

      /** @param {DomReply} reply @param {string} done */
      form.onReply = async (reply, done) => {
        if (settled) return;
        if (this.#submit) {
          form.busy(true);
          let shown;
          try {
            shown = await this.#submit(question, reply);
          } catch (err) {
            if (!settled) {
              form.busy(false);
              form.status(messageOf(err), true);
            }
            return;
          }
          if (settled) return;
          if (typeof shown === 'string' && shown !== '') done = shown;
        }
        settle('decline' in reply ? 'declined' : 'answered', done);
        resolve(reply);
      };
    });
  }

  /** Focuses the first question of the first open form, if any. */
  #focusNext() {
    const next = this.#root.querySelector('form.askcore-call[data-askcore-state="open"]');
    if (next) /** @type {any} */ (next).askcoreFocus?.();
  }

  /**
   * Builds the form for a call.
   * @param {DomQuestion} question
   * @param {any} layout the core's picker op
   */
  #render(question, layout) {
    const doc = this.#doc;
    const core = this.#core;
    const id = `askcore-${++nextId}`;
    const el = (/** @type {string} */ tag, /** @type {string} */ cls, /** @type {string} */ text = undefined) => {
      const e = doc.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    };
    let fields = {};
    try {
      fields = core.elicitation(question)?.requestedSchema?.properties ?? {};
    } catch {
      fields = {};
    }
    /** @param {string} base @param {number} i */
    const field = (base, i) => /** @type {any} */ (fields)[question.batch ? `${base}_${i + 1}` : base] ?? {};

    const formEl = /** @type {HTMLFormElement} */ (el('form', 'askcore-call'));
    formEl.noValidate = true; // the core judges, not the browser
    formEl.dataset.askcoreState = 'open';
    const from = question.from?.agentId;
    if (from) formEl.appendChild(el('p', 'askcore-from', core.sanitizeTitle(String(from))));

    /** @type {QuestionView[]} */
    const views = layout.questions.map((/** @type {any} */ q, /** @type {number} */ i) => {
      const qid = `${id}-q${i}`;
      const fieldset = /** @type {HTMLFieldSetElement} */ (el('fieldset', 'askcore-question'));
      fieldset.dataset.askcoreIndex = String(i);
      const legend = el('legend', 'askcore-legend');
      if (q.position) legend.appendChild(el('span', 'askcore-position', q.position));
      if (q.header) legend.appendChild(el('span', 'askcore-header', q.header));
      legend.appendChild(el('span', 'askcore-text', q.question));
      fieldset.appendChild(legend);

      const body = el('div', 'askcore-body');
      const list = el('div', 'askcore-entries');
      body.appendChild(list);
      fieldset.appendChild(body);
      const toggled = new Set(q.toggled);
      /** @type {HTMLInputElement[]} */
      const entries = [];
      const previews = new Map();
      const hasPreview = q.entries.some((/** @type {any} */ e) => e.preview);
      let previewPane = null;
      if (hasPreview) {
        previewPane = el('div', 'askcore-previews');
        body.appendChild(previewPane);
        body.classList.add('askcore-with-previews');
      }
      q.entries.forEach((/** @type {any} */ e, /** @type {number} */ n) => {
        const eid = `${qid}-e${n}`;
        const label = /** @type {HTMLLabelElement} */ (el('label', 'askcore-entry'));
        const input = /** @type {HTMLInputElement} */ (el('input', 'askcore-choice'));
        input.type = q.multiSelect ? 'checkbox' : 'radio';
        input.name = qid;
        input.value = String(e.index);
        input.id = eid;
        input.dataset.askcoreOption = String(e.index);
        if (q.multiSelect) {
          input.checked = toggled.has(e.index);
          input.tabIndex = n === q.cursor ? 0 : -1; // one tab stop per question, as a radio group has
        } else {
          input.checked = n === q.cursor && e.recommended === true;
        }
        const names = [];
        const describe = [];
        label.appendChild(input);
        if (n < 9) {
          const key = el('span', 'askcore-key', String(n + 1));
          key.setAttribute('aria-hidden', 'true');
          label.appendChild(key);
        }
        const text = el('span', 'askcore-label', e.label);
        text.id = `${eid}-l`;
        names.push(text.id);
        label.appendChild(text);
        if (e.recommended) {
          const rec = el('span', 'askcore-recommended', layout.recommended);
          rec.id = `${eid}-r`;
          names.push(rec.id);
          label.appendChild(rec);
        }
        if (e.description) {
          const d = el('span', 'askcore-description', e.description);
          d.id = `${eid}-d`;
          describe.push(d.id);
          label.appendChild(d);
        }
        if (e.preview && previewPane) {
          const pre = el('pre', 'askcore-preview', previewText(e.preview));
          pre.id = `${eid}-p`;
          pre.hidden = true;
          describe.push(pre.id);
          previewPane.appendChild(pre);
          previews.set(input, pre);
        }
        input.setAttribute('aria-labelledby', names.join(' '));
        if (describe.length) input.setAttribute('aria-describedby', describe.join(' '));
        list.appendChild(label);
        entries.push(input);
      });

      /** @type {HTMLInputElement | null} */ let customToggle = null;
      /** @type {HTMLInputElement | null} */ let customText = null;
      if (q.custom !== undefined) {
        const cid = `${qid}-custom`;
        const wrap = el('div', 'askcore-custom');
        const name = el('span', 'askcore-label', q.custom);
        name.id = `${cid}-l`;
        customText = /** @type {HTMLInputElement} */ (el('input', 'askcore-custom-text'));
        customText.type = 'text';
        customText.id = cid;
        customText.autocomplete = 'off';
        customText.setAttribute('aria-labelledby', name.id);
        const max = field(entries.length ? 'custom_answer' : 'answer', i).maxLength;
        if (typeof max === 'number') customText.maxLength = max;
        if (entries.length && !q.multiSelect) {
          // A radio of its own: choosing it unselects the options; typing chooses it.
          const label = /** @type {HTMLLabelElement} */ (el('label', 'askcore-entry askcore-custom-entry'));
          customToggle = /** @type {HTMLInputElement} */ (el('input', 'askcore-choice'));
          customToggle.type = 'radio';
          customToggle.name = qid;
          customToggle.value = 'custom';
          customToggle.setAttribute('aria-labelledby', name.id);
          label.appendChild(customToggle);
          label.appendChild(name);
          wrap.appendChild(label);
          const toggle = customToggle;
          customText.addEventListener('input', () => {
            if (customText?.value !== '') toggle.checked = true;
          });
          toggle.addEventListener('change', () => {
            if (toggle.checked) customText?.focus();
          });
        } else {
          const label = /** @type {HTMLLabelElement} */ (el('label', 'askcore-custom-label'));
          label.htmlFor = cid;
          label.appendChild(name);
          wrap.appendChild(label);
        }
        wrap.appendChild(customText);
        list.appendChild(wrap);
      }

      const notesLabel = el('label', 'askcore-notes');
      const nf = field('notes', i);
      const notesName = el('span', 'askcore-notes-label', typeof nf.title === 'string' ? nf.title : this.#labels.notes);
      const notes = /** @type {HTMLInputElement} */ (el('input', 'askcore-notes-text'));
      notes.type = 'text';
      notes.autocomplete = 'off';
      if (typeof nf.maxLength === 'number') notes.maxLength = nf.maxLength;
      notesLabel.appendChild(notesName);
      notesLabel.appendChild(notes);
      fieldset.appendChild(notesLabel);

      const error = el('p', 'askcore-error');
      error.setAttribute('role', 'alert');
      error.hidden = true;
      fieldset.appendChild(error);
      const summary = el('p', 'askcore-summary');
      summary.hidden = true;
      fieldset.appendChild(summary);
      if (q.help) {
        const help = el('p', 'askcore-help', q.help);
        help.id = `${qid}-help`;
        fieldset.appendChild(help);
        fieldset.setAttribute('aria-describedby', help.id);
      }
      formEl.appendChild(fieldset);
      return { i, multi: q.multiSelect === true, fieldset, entries, customToggle, customText, notes, error, summary, previews, previewPane };
    });

    const actions = el('div', 'askcore-actions');
    const submit = /** @type {HTMLButtonElement} */ (el('button', 'askcore-submit', this.#labels.submit));
    submit.type = 'submit';
    const decline = /** @type {HTMLButtonElement} */ (el('button', 'askcore-decline', this.#labels.decline));
    decline.type = 'button';
    actions.appendChild(submit);
    actions.appendChild(decline);
    formEl.appendChild(actions);
    const status = el('p', 'askcore-status');
    status.setAttribute('role', 'status');
    formEl.appendChild(status);

    const form = {
      element: formEl,
      /** @type {(reply: DomReply, done: string) => void} */
      onReply: () => {},
      /** @type {(err: unknown) => void} */
      onFail: () => {},
      /** @param {number} i */
      focusQuestion: (i) => focusCursor(views[i]),
      /** @param {boolean} on */
      busy(on) {
        submit.disabled = on;
        decline.disabled = on;
        formEl.setAttribute('aria-busy', String(on));
      },
      /** @param {string} text @param {boolean} [alert] */
      status(text, alert = false) {
        status.textContent = text;
        status.setAttribute('role', alert ? 'alert' : 'status');
        status.classList.toggle('askcore-status-error', alert);
      },
      /**
       * Sets the controls to what the person gave elsewhere: the chosen
       * options and only them (never the recommended one the form started
       * on), the typed text and the notes. A decline, or a reply of
       * another shape (typed lines), marks nothing: the status says it.
       * @param {any} reply
       */
      show(reply) {
        const picks = Array.isArray(reply.picks) ? reply.picks : [];
        for (const v of views) {
          const pick = picks[v.i] ?? {};
          const options = Array.isArray(pick.options) ? pick.options : [];
          const text = typeof pick.text === 'string' ? pick.text : '';
          for (const e of v.entries) e.checked = options.includes(Number(e.value));
          if (v.customToggle) v.customToggle.checked = text !== '' && options.length === 0;
          if (v.customText) v.customText.value = text;
          v.notes.value = typeof pick.notes === 'string' ? pick.notes : '';
          v.error.hidden = true;
        }
      },
      /** @param {string} state @param {string} text */
      finish(state, text) {
        formEl.dataset.askcoreState = state;
        formEl.removeAttribute('aria-busy');
        for (const v of views) {
          v.fieldset.disabled = true;
          v.summary.hidden = true;
        }
        submit.disabled = true;
        decline.disabled = true;
        actions.hidden = true;
        form.status(text, state === 'ended');
      },
    };
    /** @type {any} */ (formEl).askcoreFocus = () => form.focusQuestion(0);

    /** The pick the controls of question v say. @param {QuestionView} v @returns {Pick} */
    const pickOf = (v) => {
      /** @type {Pick} */
      const pick = { options: [] };
      const text = v.customText?.value ?? '';
      if (v.multi) {
        pick.options = v.entries.filter((e) => e.checked).map((e) => Number(e.value));
        if (text !== '') pick.text = text;
      } else if (v.entries.length === 0 || v.customToggle?.checked) {
        pick.text = text;
      } else {
        const chosen = v.entries.find((e) => e.checked);
        if (chosen) pick.options = [Number(chosen.value)];
      }
      if (v.notes.value.trim() !== '') pick.notes = v.notes.value;
      return pick;
    };

    /**
     * Has the core judge question v's pick: its summary, or null after
     * showing the core's message for the person under the question.
     * @param {QuestionView} v
     */
    const check = (v) => {
      const pick = pickOf(v);
      try {
        const s = checkPick(core, question, v.i, pick);
        v.error.hidden = true;
        v.error.textContent = '';
        v.fieldset.removeAttribute('aria-invalid');
        v.summary.textContent = '→ ' + s;
        v.summary.hidden = false;
        return { pick, summary: s };
      } catch (err) {
        if (/** @type {any} */ (err)?.code !== 'INVALID_ANSWER') throw err;
        v.summary.hidden = true;
        v.error.textContent = messageOf(err);
        v.error.hidden = false;
        v.fieldset.setAttribute('aria-invalid', 'true');
        return null;
      }
    };

    const submitAll = () => {
      if (formEl.dataset.askcoreState !== 'open' || submit.disabled) return;
      /** @type {Pick[]} */
      const picks = [];
      const summaries = [];
      for (const v of views) {
        const r = check(v);
        if (!r) {
          focusCursor(v);
          return;
        }
        picks.push(r.pick);
        summaries.push('→ ' + r.summary);
      }
      form.onReply({ picks }, summaries.join('\n'));
    };
    const declineAll = () => {
      if (formEl.dataset.askcoreState !== 'open' || decline.disabled) return;
      form.onReply({ decline: true }, layout.declined);
    };

    /**
     * Runs a handler; an error that is not the core's verdict on a pick
     * ends the ask with it.
     * @param {() => void} fn
     */
    const guarded = (fn) => {
      try {
        fn();
      } catch (err) {
        form.onFail(err);
      }
    };
    formEl.addEventListener('submit', (ev) => {
      ev.preventDefault();
      guarded(submitAll);
    });
    decline.addEventListener('click', declineAll);

    /** @param {Element | null} target */
    const viewOf = (target) => views.find((v) => v.fieldset.contains(target)) ?? null;

    formEl.addEventListener('keydown', (ev) => guarded(() => onKey(ev)));

    /** @param {KeyboardEvent} ev */
    function onKey(ev) {
      if (formEl.dataset.askcoreState !== 'open') return;
      if (ev.isComposing || ev.keyCode === 229) return; // an input method is composing: its Enter and Esc are its own
      const target = /** @type {HTMLElement} */ (ev.target);
      const v = viewOf(target);
      const inText = target instanceof HTMLInputElement && target.type === 'text';
      const key = ev.key;
      if (key === 'Escape') {
        ev.preventDefault();
        declineAll();
        return;
      }
      if (target instanceof HTMLButtonElement) return; // Enter and Space press the button
      if (key === 'Enter') {
        ev.preventDefault();
        if (ev.ctrlKey || ev.metaKey || !v) return submitAll();
        if (!v.multi && target instanceof HTMLInputElement && target.type === 'radio') target.checked = true;
        if (!check(v)) return focusCursor(v);
        if (v.i < views.length - 1) return focusCursor(views[v.i + 1]);
        return submitAll();
      }
      if (!v || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      const at = entryAt(v, target);
      if (at < 0) return; // the notes field, or outside the entries
      const custom = v.customText && target === v.customText;
      const last = v.entries.length + (v.customText && v.entries.length ? 1 : 0) - 1;
      let to = -1;
      if (key === 'ArrowDown' || (!inText && key === 'j')) to = Math.min(at + 1, last);
      else if (key === 'ArrowUp' || (!inText && key === 'k')) to = Math.max(at - 1, 0);
      else if (!inText && /^[1-9]$/.test(key) && Number(key) <= v.entries.length) to = Number(key) - 1;
      else return;
      ev.preventDefault();
      if (custom && to === at) return;
      moveTo(v, to);
    }

    /** Shows the preview of the entry with the focus (or under the pointer). */
    for (const v of views) {
      if (!v.previewPane) continue;
      /** @param {HTMLInputElement | null} input */
      const show = (input) => {
        for (const [e, pre] of v.previews) pre.hidden = e !== input;
        v.previewPane?.classList.toggle('askcore-previews-empty', !input || !v.previews.has(input));
      };
      for (const e of v.entries) {
        e.addEventListener('focus', () => show(e));
        e.parentElement?.addEventListener('pointerenter', () => show(e));
      }
      v.customText?.addEventListener('focus', () => show(null));
      v.customToggle?.addEventListener('focus', () => show(null));
      const first = v.entries.find((e) => e.checked) ?? v.entries[0];
      show(first ?? null);
    }

    /** Roving tab stop of a multi-select question follows the focus. */
    for (const v of views) {
      if (!v.multi) continue;
      for (const e of v.entries) {
        e.addEventListener('focus', () => {
          for (const o of v.entries) o.tabIndex = o === e ? 0 : -1;
        });
      }
    }

    /**
     * The position of target among v's entries (the custom text counts as
     * the last one), or -1.
     * @param {QuestionView} v
     * @param {Element} target
     */
    function entryAt(v, target) {
      const n = v.entries.indexOf(/** @type {HTMLInputElement} */ (target));
      if (n >= 0) return n;
      if (v.entries.length && (target === v.customText || target === v.customToggle)) return v.entries.length;
      return -1;
    }

    /**
     * Moves the cursor of v to entry n: a radio is chosen as it gets the
     * focus (as a native radio group does); the own-answer entry focuses
     * its text field.
     * @param {QuestionView} v
     * @param {number} n
     */
    function moveTo(v, n) {
      if (n < v.entries.length) {
        const e = v.entries[n];
        if (!v.multi) e.checked = true;
        e.focus();
        return;
      }
      if (v.customToggle) v.customToggle.checked = true;
      v.customText?.focus();
    }

    /** Focuses question v where its cursor is: the chosen option, else the first entry. @param {QuestionView} v */
    function focusCursor(v) {
      if (!v) return;
      const target = v.multi
        ? v.entries.find((e) => e.tabIndex === 0) ?? v.entries[0]
        : v.customToggle?.checked
          ? v.customText
          : v.entries.find((e) => e.checked) ?? v.entries[0];
      (target ?? v.customText ?? v.notes).focus();
    }

    return form;
  }
}

/**
 * question.checkPick when the question has it (what UserInteraction hands
 * a provider), else the same through the core's ops (a normalizeRaw result).
 * @param {import('./lib/core.js').Core} core
 * @param {DomQuestion} question
 * @param {number} i
 * @param {Pick} pick
 */
function checkPick(core, question, i, pick) {
  if ('checkPick' in question && typeof question.checkPick === 'function') return question.checkPick(i, pick);
  return core.summary(question, core.resolve(question, pick, i), i);
}

/** @param {unknown} err */
function messageOf(err) {
  if (err && typeof err === 'object' && typeof (/** @type {any} */ (err).message) === 'string') return /** @type {any} */ (err).message;
  return String(err);
}

/**
 * A provider that asks in `element` (see DomProvider).
 * @param {import('./lib/core.js').Core} core
 * @param {Element} element
 * @param {DomProviderOptions} [options]
 */
export function createDomProvider(core, element, options) {
  return new DomProvider(core, element, options);
}

/**
 * A preview (Markdown text) as the form shows it in its code block: a
 * fenced code block's lines without the fence lines (```lang ... ```,
 * ~~~ too), which would otherwise show literally; everything else as it
 * is. Text, never HTML.
 * @param {string} md
 */
function previewText(md) {
  /** @type {string[]} */
  const out = [];
  /** @type {string | null} the open fence's marks */
  let open = null;
  for (const line of md.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (m && open === null && !(m[1][0] === '`' && m[2].includes('`'))) {
      open = m[1];
      continue;
    }
    if (m && open !== null && m[1][0] === open[0] && m[1].length >= open.length && m[2].trim() === '') {
      open = null;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
