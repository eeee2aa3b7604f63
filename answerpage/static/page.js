// The answer page: the questions pending on the server (its event stream),
// each rendered by the DOM provider from the core's ops in this browser
// (askcore.wasm, the same bytes as every other surface), and the person's
// reply posted back. The server's core judges it again: the check here is
// only a preview. Every text the model wrote is set as text.
import { load } from './host/browser.js';
import { createDomProvider } from './host/dom.js';

const base = new URL('./', location.href); // /TOKEN/
const statusEl = /** @type {HTMLElement} */ (document.getElementById('status'));
const list = /** @type {HTMLElement} */ (document.getElementById('questions'));

/** Page words (the core has none for the page around its questions). */
const WORDS = {
  loading: 'Loading…',
  none: 'No question is waiting for an answer. New questions appear here by themselves.',
  waiting: (/** @type {number} */ n) => (n === 1 ? '1 question is waiting for your answer.' : `${n} questions are waiting for your answer.`),
  elsewhere: '(answered in another window)',
  gone: 'This question is no longer waiting for an answer.',
  lost: 'The connection to the asking program was lost; trying again…',
  bye: 'The asking program stopped serving this page; you can close it.',
  unreachable: 'The answer could not be sent: the asking program cannot be reached.',
  failed: 'This page could not start: ',
  sent: 'Your answer was sent.',
};

/**
 * The questions on the page by id: the controller that withdraws one,
 * whether its answer is being sent.
 * @type {Map<string, {controller: AbortController, sending: boolean}>}
 */
const items = new Map();
/** @type {WeakMap<object, string>} */
const idOf = new WeakMap();
let stopped = false;
/**
 * Whether an answer was sent from this page: kept for the tab's life
 * (sessionStorage, per page URL), so that a reload still says so.
 */
const sentKey = `askcore-sent:${base.pathname}`;
let sent = readSent();
/** When the first question was painted (ms since the navigation began), for make bench and the tests. */
let firstQuestionMs = 0;

const events = new EventSource(new URL('events', base));
// The stream opens while askcore.wasm compiles; its events wait for it.
const ready = load().then((core) => ({
  core,
  provider: createDomProvider(core, list, { submit }),
}));
let queue = ready.then(() => {});
ready.catch((err) => {
  statusEl.textContent = WORDS.failed + (err instanceof Error ? err.message : String(err));
  statusEl.setAttribute('role', 'alert');
  /** @type {any} */ (window).__askcorePage = { error: String(err) };
});

/** Runs fn on the loaded core, in event order. @param {(r: Awaited<typeof ready>) => void} fn */
function later(fn) {
  queue = queue.then(() => ready.then(fn)).catch((err) => console.error(err));
}

events.addEventListener('pending', (ev) => {
  const { items: pending } = JSON.parse(/** @type {MessageEvent} */ (ev).data);
  later((r) => {
    const ids = new Set(pending.map((/** @type {any} */ p) => p.id));
    for (const [id, entry] of items) if (!ids.has(id) && !entry.sending) end(id, entry, WORDS.gone);
    for (const p of pending) add(r, p);
    update();
  });
});
events.addEventListener('add', (ev) => {
  const p = JSON.parse(/** @type {MessageEvent} */ (ev).data);
  later((r) => {
    add(r, p);
    update();
  });
});
events.addEventListener('end', (ev) => {
  const e = JSON.parse(/** @type {MessageEvent} */ (ev).data);
  later(() => {
    const entry = items.get(e.id);
    if (!entry) return;
    // This page's own answer: the reply to its post settles it.
    if (entry.sending && (e.state === 'answered' || e.state === 'declined')) return;
    end(e.id, entry, e.state === 'answered' || e.state === 'declined' ? `${e.message}\n${WORDS.elsewhere}` : e.message);
    update();
  });
});
events.addEventListener('bye', () => {
  events.close();
  later(() => {
    stopped = true;
    // A question whose answer is on its way is settled by the reply.
    for (const [id, entry] of items) if (!entry.sending) end(id, entry, WORDS.bye);
    update();
  });
});
events.addEventListener('open', () => later(update));
events.addEventListener('error', () => {
  if (!stopped) later(() => update(WORDS.lost));
});

/**
 * Shows one pending question (once).
 * @param {Awaited<typeof ready>} r
 * @param {{id: string, call: unknown, from?: object}} p
 */
function add({ core, provider }, p) {
  if (items.has(p.id)) return;
  const call = /** @type {any} */ (core.normalizeRaw(JSON.stringify(p.call)));
  if (p.from) call.from = p.from;
  idOf.set(call, p.id);
  const controller = new AbortController();
  items.set(p.id, { controller, sending: false });
  const settled = () => {
    items.delete(p.id);
    update();
  };
  provider.ask(call, { signal: controller.signal }).then(settled, settled);
  if (!firstQuestionMs) {
    firstQuestionMs = -1;
    requestAnimationFrame(() => setTimeout(() => {
      firstQuestionMs = performance.now();
      update();
    }));
  }
}

/**
 * Withdraws a question from the page, saying why.
 * @param {string} id
 * @param {{controller: AbortController}} entry
 * @param {string} why
 */
function end(id, entry, why) {
  items.delete(id);
  entry.controller.abort(new Error(why));
}

/**
 * Posts what the person gave; the server's core judges it. Resolves to
 * what the form shows (the core's summary), or throws the reason it was
 * not taken (shown on the form, which stays open).
 * @param {object} question
 * @param {object} reply
 */
async function submit(question, reply) {
  const id = idOf.get(question);
  const entry = id === undefined ? undefined : items.get(id);
  if (!entry) throw new Error(WORDS.gone);
  entry.sending = true;
  let res;
  try {
    res = await fetch(new URL('answer', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, reply }),
      credentials: 'same-origin',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch {
    entry.sending = false;
    if (stopped) {
      end(/** @type {string} */ (id), entry, WORDS.bye);
      update();
    }
    throw new Error(WORDS.unreachable);
  }
  let body = {};
  try {
    body = await res.json();
  } catch {
    body = {};
  }
  entry.sending = false;
  const message = /** @type {any} */ (body).message;
  if (res.ok) {
    markSent();
    return typeof message === 'string' ? message : '';
  }
  throw new Error(typeof message === 'string' && message ? message : `HTTP ${res.status}`);
}

/** @returns {boolean} */
function readSent() {
  try {
    return sessionStorage.getItem(sentKey) === '1';
  } catch {
    return false; // storage refused: the page says it until it is left
  }
}

function markSent() {
  sent = true;
  try {
    sessionStorage.setItem(sentKey, '1');
  } catch {
    // Said on this page; a reload will not know.
  }
}

/** The status line when nothing overrides it. */
function statusText() {
  const n = items.size;
  if (stopped) return sent ? `${WORDS.sent} ${WORDS.bye}` : WORDS.bye;
  if (n) return WORDS.waiting(n);
  return sent ? WORDS.sent : WORDS.none;
}

/** The page's status line and title. @param {string} [override] */
function update(override) {
  const n = items.size;
  statusEl.textContent = override ?? statusText();
  document.title = n ? `(${n}) askcore` : 'askcore';
  /** @type {any} */ (window).__askcorePage = { ready: true, pending: n, firstQuestionMs: Math.max(firstQuestionMs, 0) };
}
