// The hub's inbox: the pending asks of all the person's agents, grouped by
// agent and session, newest first, each rendered by the answer page's own
// client (the DOM provider over askcore.wasm, the same bytes as every other
// surface) and kept live by the hub's event stream. What the person gives is
// posted to the hub, whose core judges it again: the check here is only a
// preview. Every text an agent or a model wrote is set as text.
import { load } from '/host/browser.js';
import { createDomProvider } from '/host/dom.js';

const csrf = /** @type {HTMLMetaElement} */ (document.querySelector('meta[name="askcore-csrf"]')).content;
const statusEl = /** @type {HTMLElement} */ (document.getElementById('status'));
const announceEl = /** @type {HTMLElement} */ (document.getElementById('announce'));
const asksEl = /** @type {HTMLElement} */ (document.getElementById('asks'));
const signoutEl = /** @type {HTMLButtonElement} */ (document.getElementById('signout'));
const notifyEl = /** @type {HTMLButtonElement} */ (document.getElementById('notify'));

/** The page's words (the core has none for the page around its questions). */
const WORDS = {
  none: 'No question is waiting for an answer. New questions appear here by themselves.',
  waiting: (/** @type {number} */ n) => (n === 1 ? '1 question is waiting for your answer.' : `${n} questions are waiting for your answer.`),
  announce: (/** @type {string} */ agent) => `New question from ${agent}.`,
  notifyTitle: (/** @type {string} */ agent) => `${agent} asks`,
  session: (/** @type {string} */ id) => `Session ${id}`,
  asked: (/** @type {string} */ age) => `asked ${age}`,
  notWaiting: 'The asking program is not waiting now: an answer given here is kept for its return.',
  lost: 'The connection to the hub was lost; trying again…',
  signedOut: 'You were signed out. Sign in again with a new link (askcore-hub login).',
  unreachable: 'The answer could not be sent: the hub cannot be reached. Try again.',
  failed: 'This page could not start: ',
  gone: 'This question is no longer waiting for an answer.',
};

/**
 * @typedef {{controller: AbortController, sending: boolean, created: number, ageEl: HTMLElement, article: HTMLElement,
 *   waitingUntil: number, waitEl: HTMLElement}} Entry
 */
/**
 * The pending asks on the page by id.
 * @type {Map<string, Entry>}
 */
const items = new Map();
/** Every ask shown, pending or ended: their times keep ageing. @type {Set<Entry>} */
const shown = new Set();
/** The asking program counts as not waiting this long after its last known wait. */
const NOT_WAITING_AFTER = 60_000;
/** @type {WeakMap<object, string>} */
const idOf = new WeakMap();
/** Server time minus this device's, so that ages do not depend on this device's clock. */
let skew = 0;
let signedOut = false;

const events = new EventSource('/inbox/events');
const ready = load().then((core) => ({
  core,
  provider: createDomProvider(core, asksEl, { submit, focus: false }),
}));
let queue = ready.then(() => {});
ready.catch((err) => {
  statusEl.textContent = WORDS.failed + (err instanceof Error ? err.message : String(err));
  statusEl.setAttribute('role', 'alert');
  /** @type {any} */ (window).__askcoreInbox = { error: String(err) };
});

/** Runs fn on the loaded core, in event order. @param {(r: Awaited<typeof ready>) => void} fn */
function later(fn) {
  queue = queue.then(() => ready.then(fn)).catch((err) => console.error(err));
}

events.addEventListener('pending', (ev) => {
  const { items: pending, now } = JSON.parse(/** @type {MessageEvent} */ (ev).data);
  skew = now - Date.now();
  later((r) => {
    const ids = new Set(pending.map((/** @type {any} */ p) => p.id));
    for (const [id, entry] of items) if (!ids.has(id) && !entry.sending) end(id, entry, WORDS.gone);
    // Oldest first: each one added goes on top.
    for (const p of pending) add(r, p, false);
    focusTop();
    update();
  });
});
events.addEventListener('add', (ev) => {
  const p = JSON.parse(/** @type {MessageEvent} */ (ev).data);
  later((r) => {
    if (add(r, p, true)) {
      announceEl.textContent = WORDS.announce(p.agent);
      notify(p);
    }
    focusTop();
    update();
  });
});
events.addEventListener('end', (ev) => {
  const e = JSON.parse(/** @type {MessageEvent} */ (ev).data);
  later(() => {
    const entry = items.get(e.id);
    if (!entry) return;
    // This page's own reply: the answer to its post settles it.
    if (entry.sending && e.state === 'replied') return;
    end(e.id, entry, e.message);
    if (e.state === 'replied') showAnswered(entry, e);
    update();
  });
});
events.addEventListener('waiting', (ev) => {
  const w = JSON.parse(/** @type {MessageEvent} */ (ev).data);
  later(() => {
    const entry = items.get(w.id);
    if (!entry) return;
    entry.waitingUntil = w.waitingUntil;
    age(entry);
  });
});
events.addEventListener('signedout', () => signOut());
events.addEventListener('open', () => later(() => update()));
events.addEventListener('error', () => {
  if (!signedOut) later(() => update(WORDS.lost));
});

/**
 * Shows one pending ask (once), at the top of its session, its session at
 * the top of its agent, its agent at the top of the page.
 * @param {Awaited<typeof ready>} r
 * @param {{id: string, call: unknown, agent: string, sessionId: string, created: number, waitingUntil: number}} p
 * @param {boolean} live
 */
function add({ core, provider }, p, live) {
  if (items.has(p.id)) return false;
  const call = /** @type {any} */ (core.normalizeRaw(JSON.stringify(p.call)));
  idOf.set(call, p.id);
  const controller = new AbortController();
  const session = sessionSection(p.agent, p.sessionId);
  const article = document.createElement('article');
  article.className = 'ask';
  article.dataset.askId = p.id;
  const meta = document.createElement('p');
  meta.className = 'ask-meta';
  const ageEl = document.createElement('time');
  ageEl.dateTime = new Date(p.created).toISOString();
  meta.appendChild(ageEl);
  const waitEl = document.createElement('span');
  waitEl.className = 'ask-not-waiting';
  waitEl.hidden = true;
  meta.appendChild(waitEl);
  article.appendChild(meta);
  const entry = { controller, sending: false, created: p.created, ageEl, article, waitingUntil: p.waitingUntil || p.created, waitEl };
  items.set(p.id, entry);
  shown.add(entry);
  age(entry);
  const settled = () => {
    if (items.get(p.id) === entry) items.delete(p.id);
    article.dataset.ended = 'true';
    update();
  };
  provider.ask(call, { signal: controller.signal }).then(settled, settled);
  // The provider appended the form to the page's list: it moves into the
  // ask's own article (still inside the list, where the provider finds it).
  const form = asksEl.lastElementChild;
  if (form && form.tagName === 'FORM') {
    form.setAttribute('aria-label', `Question from ${p.agent}`);
    article.appendChild(form);
  }
  const list = /** @type {HTMLElement} */ (session.querySelector('.asks'));
  list.prepend(article);
  if (live) article.classList.add('ask-new');
  return true;
}

/**
 * Puts the keyboard in the top open form (the newest ask) when nothing
 * else has it, so that the picker's keys work at once; a person busy
 * elsewhere on the page keeps the focus.
 */
function focusTop() {
  const active = document.activeElement;
  if (active && active !== document.body) return;
  const top = asksEl.querySelector('form.askcore-call[data-askcore-state="open"]');
  /** @type {any} */ (top)?.askcoreFocus?.();
}

/**
 * The section of one agent's session, created as needed; both move to the
 * top (the newest ask's group comes first).
 * @param {string} agent
 * @param {string} sessionId
 */
function sessionSection(agent, sessionId) {
  let agentEl = /** @type {HTMLElement | undefined} */ ([...asksEl.children].find((e) => e instanceof HTMLElement && e.dataset.agent === agent));
  if (!agentEl) {
    agentEl = document.createElement('section');
    agentEl.className = 'agent';
    agentEl.dataset.agent = agent;
    const h = document.createElement('h2');
    h.textContent = agent;
    h.id = `agent-${asksEl.children.length}-${Date.now()}`;
    agentEl.setAttribute('aria-labelledby', h.id);
    agentEl.appendChild(h);
  }
  asksEl.prepend(agentEl);
  let sessionEl = /** @type {HTMLElement | undefined} */ ([...agentEl.children].find((e) => e instanceof HTMLElement && e.dataset.session === sessionId));
  if (!sessionEl) {
    sessionEl = document.createElement('section');
    sessionEl.className = 'session';
    sessionEl.dataset.session = sessionId;
    // An ask without a session (askcore-stdio ask) gets no heading.
    if (sessionId) {
      const h = document.createElement('h3');
      h.textContent = WORDS.session(sessionId);
      sessionEl.appendChild(h);
    }
    const list = document.createElement('div');
    list.className = 'asks';
    sessionEl.appendChild(list);
  }
  agentEl.querySelector('h2')?.after(sessionEl);
  return sessionEl;
}

/**
 * Withdraws an ask from the page's open forms, saying why.
 * @param {string} id
 * @param {{controller: AbortController}} entry
 * @param {string} why
 */
function end(id, entry, why) {
  items.delete(id);
  entry.controller.abort(new Error(why));
}

/**
 * Posts what the person gave; the hub's core judges it. Resolves to what
 * the form shows, or throws the reason it was not taken (shown on the
 * form, which stays open). A reply that came second (another device)
 * ends the ask with the first one's outcome.
 * @param {object} question
 * @param {object} reply
 */
async function submit(question, reply) {
  const id = idOf.get(question);
  const entry = id === undefined ? undefined : items.get(id);
  if (!entry || id === undefined) throw new Error(WORDS.gone);
  entry.sending = true;
  let res;
  try {
    res = await fetch('/inbox/reply', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-askcore-csrf': csrf },
      body: JSON.stringify({ id, reply }),
      credentials: 'same-origin',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch {
    entry.sending = false;
    throw new Error(WORDS.unreachable);
  }
  /** @type {any} */
  let body = {};
  try {
    body = await res.json();
  } catch {
    body = {};
  }
  entry.sending = false;
  const message = typeof body.message === 'string' ? body.message : '';
  if (res.ok) return message;
  if (res.status === 401) signOut();
  if (res.status === 409 || res.status === 404) {
    // Answered elsewhere first, withdrawn or expired: the page says so.
    end(id, entry, message || WORDS.gone);
    if (body.state === 'replied') showAnswered(entry, body);
    update();
  }
  throw new Error(message || `HTTP ${res.status}`);
}

function signOut() {
  signedOut = true;
  events.close();
  for (const [id, entry] of items) end(id, entry, WORDS.signedOut);
  update(WORDS.signedOut);
  statusEl.setAttribute('role', 'alert');
}

// The page's own notifications. Browsers let a page ask for the
// permission only from a person's gesture, so a button asks; it is shown
// only while the choice is open.
if ('Notification' in window && Notification.permission === 'default') {
  notifyEl.hidden = false;
  notifyEl.addEventListener('click', async () => {
    notifyEl.disabled = true;
    try {
      await Notification.requestPermission();
    } finally {
      notifyEl.disabled = false;
      notifyEl.hidden = Notification.permission !== 'default';
    }
  });
}

/**
 * Tells of a live ask while the person looks elsewhere (another tab or
 * window); a notification's text is plain text.
 * @param {{id: string, call: any, agent: string}} p
 */
function notify(p) {
  if (!('Notification' in window) || Notification.permission !== 'granted' || (!document.hidden && document.hasFocus())) return;
  const qs = Array.isArray(p.call?.questions) ? p.call.questions : [p.call];
  const body = qs.map((/** @type {any} */ q) => (q?.header ? `${q.header}: ${q.question}` : String(q?.question ?? ''))).join('\n');
  const n = new Notification(WORDS.notifyTitle(p.agent), { body, tag: p.id });
  n.onclick = () => {
    window.focus();
    n.close();
  };
}

signoutEl.addEventListener('click', async () => {
  signoutEl.disabled = true;
  try {
    await fetch('/signout', { method: 'POST', headers: { 'x-askcore-csrf': csrf }, credentials: 'same-origin', cache: 'no-store', redirect: 'error' });
  } catch {
    // Signed out or not, this page stops; the next load tells.
  }
  location.replace('/');
});

/** How long ago ms (server time) was, for people. @param {number} ms */
function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() + skew - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/**
 * The ask's times: when it was asked (ageing, answered or not) and, while
 * it is pending, whether its program still waits.
 * @param {Entry} entry
 */
function age(entry) {
  entry.ageEl.textContent = WORDS.asked(ago(entry.created));
  const gone = items.has(entry.article.dataset.askId ?? '') && Date.now() + skew > entry.waitingUntil + NOT_WAITING_AFTER;
  entry.waitEl.hidden = !gone;
  entry.waitEl.textContent = gone ? WORDS.notWaiting : '';
  entry.article.classList.toggle('ask-orphan', gone);
}
setInterval(() => {
  for (const entry of shown) age(entry);
}, 15000);

/**
 * Shows what an ask answered elsewhere was answered with: the chosen
 * options marked (and only them: never the recommended one the form
 * started on), the typed text and the notes, with who, when and where
 * (the hub's message) as an outcome, not an error.
 * @param {Entry} entry
 * @param {{message: string, reply?: any, repliedBy?: string, where?: string}} e
 */
function showAnswered(entry, e) {
  const form = entry.article.querySelector('form.askcore-call');
  entry.article.classList.add('ask-answered');
  entry.waitEl.hidden = true;
  entry.article.classList.remove('ask-orphan');
  if (!form) return;
  form.dataset.askcoreState = 'answered';
  const status = form.querySelector('.askcore-status');
  if (status) {
    status.classList.remove('askcore-status-error');
    status.setAttribute('role', 'status');
  }
  const picks = Array.isArray(e.reply?.picks) ? e.reply.picks : [];
  form.querySelectorAll('fieldset[data-askcore-index]').forEach((fieldset) => {
    const pick = picks[Number(/** @type {HTMLElement} */ (fieldset).dataset.askcoreIndex)];
    for (const input of fieldset.querySelectorAll('input[type="radio"], input[type="checkbox"]')) {
      const el = /** @type {HTMLInputElement} */ (input);
      const option = el.dataset.askcoreOption;
      el.checked = !!pick && (option !== undefined ? pick.options?.includes(Number(option)) === true : !!pick.text);
    }
    const text = /** @type {HTMLInputElement | null} */ (fieldset.querySelector('.askcore-custom-entry input[type="text"]'));
    if (text) text.value = pick?.text ?? '';
    const notes = /** @type {HTMLInputElement | null} */ (fieldset.querySelector('.askcore-notes-text'));
    if (notes) notes.value = pick?.notes ?? '';
  });
}

/** The status line and title. @param {string} [override] */
function update(override) {
  const n = items.size;
  if (!signedOut) statusEl.textContent = override ?? (n ? WORDS.waiting(n) : WORDS.none);
  else if (override) statusEl.textContent = override;
  document.title = n ? `(${n}) askcore inbox` : 'askcore inbox';
  /** @type {any} */ (window).__askcoreInbox = { ready: true, pending: n };
}
