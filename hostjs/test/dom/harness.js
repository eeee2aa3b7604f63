// The DOM provider test page's harness (test/dom.test.mjs drives it with
// the keyboard and the mouse): calls asked through UserInteraction, or
// straight to the provider, and their outcomes as the core's bytes.
import { load, UserInteraction, answerText, errorText } from '/pkg/browser.js';
import { createDomProvider } from '/pkg/dom.js';

const violations = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective}: ${e.blockedURI}`));

const core = await load();
const root = /** @type {HTMLElement} */ (document.getElementById('root'));
const ui = new UserInteraction(core);
let provider = createDomProvider(core, root);
let dispose = ui.register(provider);
/** @type {Map<number, {controller: AbortController, outcome?: string, reply?: unknown}>} */
const calls = new Map();
let n = 0;

window.harness = {
  violations,
  /** Asks through the seam: the outcome is the answer's or the error's bytes. */
  ask(args, options = {}) {
    const id = ++n;
    const controller = new AbortController();
    const c = { controller };
    calls.set(id, c);
    ui.ask(args, { signal: controller.signal, timeoutMs: options.timeoutMs }).then(
      (a) => (c.outcome = answerText(a)),
      (e) => (c.outcome = e?.raw ? errorText(e) : String(e)),
    );
    return id;
  },
  /** Asks the provider itself: the outcome is the reply it hands back. */
  askDirect(args, from) {
    const id = ++n;
    const controller = new AbortController();
    const c = { controller };
    calls.set(id, c);
    const call = core.normalizeRaw(args);
    if (from) call.from = from;
    provider.ask(call, { signal: controller.signal }).then(
      (r) => (c.outcome = JSON.stringify(r)),
      (e) => (c.outcome = e?.raw ? errorText(e) : String(e)),
    );
    return id;
  },
  /** Asks the provider a call whose checkPick fails as a broken engine would. */
  askBroken(args) {
    const id = ++n;
    const c = { controller: new AbortController() };
    calls.set(id, c);
    const call = core.normalizeRaw(args);
    call.checkPick = () => {
      throw new Error('the engine is gone');
    };
    provider.ask(call, { signal: c.controller.signal }).then(
      (r) => (c.outcome = JSON.stringify(r)),
      (e) => (c.outcome = String(e)),
    );
    return id;
  },
  abort(id, reason) {
    calls.get(id).controller.abort(reason === undefined ? undefined : new Error(reason));
  },
  /** Aborts as a page does for an answer given on another surface: the reason carries it. */
  answeredElsewhere(id, message, reply) {
    calls.get(id).controller.abort(Object.assign(new Error(message), { answered: reply }));
  },
  outcome(id) {
    return calls.get(id)?.outcome ?? null;
  },
  close() {
    provider.close();
  },
  /**
   * A fresh provider (the old one disposed) whose submit hook refuses the
   * first replies with these messages, then takes the next, showing
   * `shown`; it records every reply it is handed.
   */
  resetSubmit(refusals, shown) {
    dispose();
    root.replaceChildren();
    const left = [...refusals];
    const seen = [];
    window.harness.submitted = seen;
    provider = createDomProvider(core, root, {
      labels: { submit: 'Send', decline: 'Skip' },
      submit: async (q, reply) => {
        seen.push(JSON.stringify(reply));
        if (left.length) throw new Error(left.shift());
        return shown;
      },
    });
    dispose = ui.register(provider);
  },
  pending() {
    return provider.pending;
  },
};
window.harnessReady = true;
