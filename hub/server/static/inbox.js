// The hub's inbox: the pending asks of all the person's agents, grouped by
// agent and session, newest first, each rendered by the answer page's own
// client (the page client, client.js: the DOM provider over askcore.wasm,
// the same bytes as every other surface) and kept live by the hub's event
// stream. What the person gives is posted to the hub, whose core judges it
// again: the check here is only a preview. Every text an agent or a model
// wrote is set as text.
import { load } from '/host/browser.js';
import { createDomProvider } from '/host/dom.js';
import { startClient, WORDS as PAGE_WORDS } from '/inbox/client.js';

const csrf = /** @type {HTMLMetaElement} */ (document.querySelector('meta[name="askcore-csrf"]')).content;
const statusEl = /** @type {HTMLElement} */ (document.getElementById('status'));
const announceEl = /** @type {HTMLElement} */ (document.getElementById('announce'));
const asksEl = /** @type {HTMLElement} */ (document.getElementById('asks'));
const signoutEl = /** @type {HTMLButtonElement} */ (document.getElementById('signout'));
const notifyEl = /** @type {HTMLButtonElement} */ (document.getElementById('notify'));

/** The inbox's words (the page client has the ones both pages say). */
const WORDS = {
  announce: (/** @type {string} */ agent) => `New question from ${agent}.`,
  notifyTitle: (/** @type {string} */ agent) => `${agent} asks`,
  session: (/** @type {string} */ id) => `Session ${id}`,
  asked: (/** @type {string} */ age) => `asked ${age}`,
  notWaiting: 'The asking program is not waiting now: an answer given here is kept for its return.',
  lost: 'The connection to the hub was lost; trying again…',
  signedOut: 'You were signed out. Sign in again with a new link (askcore-hub login).',
  unreachable: 'The answer could not be sent: the hub cannot be reached. Try again.',
};

/** Server time minus this device's, so that ages do not depend on this device's clock. */
let skew = 0;
/**
 * The asking program counts as not waiting this long after its last known
 * wait (docs/hub.md: its long polls renew it; a minute without one).
 */
const NOT_WAITING_AFTER = 60_000;

/**
 * One ask on the page, as the page client keeps it, with the inbox's own
 * fields (layOut).
 * @typedef {{created: number, waitingUntil: number, ageEl: HTMLElement, waitEl: HTMLElement, article: HTMLElement, session: HTMLElement}} Card
 */
/** Every ask shown, pending or ended: their times keep ageing. @type {Set<Card>} */
const cards = new Set();

const client = startClient({
  load,
  createDomProvider,
  list: asksEl,
  status: statusEl,
  title: 'askcore inbox',
  global: '__askcoreInbox',
  events: '/inbox/events',
  post: '/inbox/reply',
  headers: { 'x-askcore-csrf': csrf },
  providerOptions: { focus: false },
  words: WORDS,
  ownStates: ['replied'],
  snapshot: (data) => {
    skew = data.now - Date.now();
  },
  prepare: (p) => layOut(p),
  shown: (p, entry, live) => place(p, entry, live),
  settled: (entry) => {
    entry.article.dataset.ended = 'true';
    age(/** @type {any} */ (entry));
  },
  arrived: (p) => {
    announceEl.textContent = WORDS.announce(p.agent);
    notify(p);
  },
  changed: () => focusTop(),
  on: {
    signedout: () => signOut(),
    // The asking program polled again (or for longer): it waits.
    waiting: (w) => client.later(() => {
      const entry = client.items.get(w.id);
      if (!entry) return;
      entry.waitingUntil = w.waitingUntil;
      age(/** @type {any} */ (entry));
    }),
  },
  refused: (status, id, entry, body) => {
    if (status === 401) signOut();
    if (status === 409 || status === 404) {
      // Answered elsewhere first (what was answered shows), withdrawn or
      // expired: the page says so.
      client.end(id, entry, body.message || PAGE_WORDS.gone, body.reply);
      client.update();
    }
  },
});

/**
 * Lays out one pending ask, before the provider shows it: its article at
 * the top of its session, its session at the top of its agent, its agent
 * at the top of the page. Returns the fields its entry keeps.
 * @param {{id: string, agent: string, sessionId: string, created: number, waitingUntil?: number}} p
 * @returns {Card}
 */
function layOut(p) {
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
  return { created: p.created, waitingUntil: p.waitingUntil || p.created, ageEl, waitEl, article, session };
}

/**
 * Puts an ask the provider showed into its article, on top of its session.
 * @param {{agent: string}} p
 * @param {any} entry
 * @param {boolean} live
 */
function place(p, entry, live) {
  const { article, session } = entry;
  // The provider appended the form to the page's list: it moves into the
  // ask's own article (still inside the list, where the provider finds it).
  const form = asksEl.lastElementChild;
  if (form && form.tagName === 'FORM') {
    form.setAttribute('aria-label', `Question from ${p.agent}`);
    article.appendChild(form);
  }
  cards.add(entry);
  age(entry);
  const list = /** @type {HTMLElement} */ (session.querySelector('.asks'));
  list.prepend(article);
  if (live) article.classList.add('ask-new');
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

function signOut() {
  client.stop(WORDS.signedOut, true);
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

/** How long ago ms (the hub's clock) was, for people. @param {number} ms */
function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() + skew - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/**
 * An ask's times: when it was asked (ageing, answered or not) and, while
 * it is open, whether its program still waits for the answer.
 * @param {Card} entry
 */
function age(entry) {
  entry.ageEl.textContent = WORDS.asked(ago(entry.created));
  const open = entry.article.querySelector('form.askcore-call[data-askcore-state="open"]') !== null;
  const gone = open && Date.now() + skew > entry.waitingUntil + NOT_WAITING_AFTER;
  entry.waitEl.hidden = !gone;
  entry.waitEl.textContent = gone ? WORDS.notWaiting : '';
}
setInterval(() => {
  for (const entry of cards) age(entry);
}, 15000);
