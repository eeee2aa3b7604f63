// The page client: what the answer page (page.js) and the hub's inbox
// (inbox.js) both do around the questions. The questions pending on the
// server come by its event stream, each is rendered by the DOM provider
// from the core's ops in this browser (askcore.wasm), and what the person
// gives is posted back, where the server's core judges it again (the check
// here is only a preview). Each page adds only its own layout and words.
// The host's modules are passed in, so that this file imports nothing and
// serves from any path (the page's /TOKEN/client.js, the hub's
// /inbox/client.js).

/** The words both pages say (the core has none for the page around its questions). */
export const WORDS = {
  none: 'No question is waiting for an answer. New questions appear here by themselves.',
  waiting: (/** @type {number} */ n) => (n === 1 ? '1 question is waiting for your answer.' : `${n} questions are waiting for your answer.`),
  gone: 'This question is no longer waiting for an answer.',
  failed: 'This page could not start: ',
  sent: 'Your answer was sent.',
};

/** The least and the most a reopening of the event stream waits (ms). */
const RETRY_LEAST = 1000;
const RETRY_MOST = 15000;
/** At most this many questions are named when the stream reopens (the hub's maxKnown). */
const MAX_KNOWN = 100;

/**
 * @typedef {{controller: AbortController, sending: boolean, [more: string]: any}} Entry
 * @typedef {{id: string, call: unknown, [more: string]: any}} Pending
 * @typedef {{core: any, provider: any}} Ready
 */

/**
 * Starts the page client.
 * @param {object} o
 * @param {() => Promise<any>} o.load the host's load (browser.js)
 * @param {(core: any, list: HTMLElement, options: object) => any} o.createDomProvider the DOM provider (dom.js)
 * @param {HTMLElement} o.list where the provider puts the forms
 * @param {HTMLElement} o.status the status line
 * @param {string} o.title the document's title, counted when questions wait
 * @param {string} o.global the window's property the tests and benchmarks read
 * @param {string | URL} o.events the event stream
 * @param {string | URL} o.post where an answer is posted
 * @param {Record<string, string>} [o.headers] more headers of the post
 * @param {object} [o.providerOptions] more options of the provider
 * @param {{lost: string, unreachable: string}} o.words what this page says of its server
 * @param {string[]} o.ownStates the states of an end event that this page's own post settles
 * @param {(e: any) => string} [o.endMessage] the words of an end event (its message)
 * @param {(data: any) => void} [o.snapshot] reads the pending event's data, as it comes
 * @param {(p: Pending, call: any) => object} [o.prepare] lays out one question before the provider shows it: more fields of its entry
 * @param {(p: Pending, entry: Entry, live: boolean) => void} [o.shown] after the provider showed it
 * @param {(entry: Entry) => void} [o.settled] once its form is settled
 * @param {(p: Pending) => void} [o.arrived] a question added live (not in a snapshot)
 * @param {() => void} [o.changed] after the questions changed, before the status line
 * @param {(status: number, id: string, entry: Entry, body: any) => void} [o.refused] a post the server refused, and its body
 * @param {() => object} [o.state] more fields of the window's property
 * @param {string} [o.remember] a sessionStorage key: once an answer was sent from this tab, the status line says so, after a reload too
 * @param {Record<string, (data: any) => void>} [o.on] this page's own events of the stream, each with its data, as they come
 */
export function startClient(o) {
  /** The questions on the page by id. @type {Map<string, Entry>} */
  const items = new Map();
  /** @type {WeakMap<object, string>} */
  const idOf = new WeakMap();
  /** Why the page stopped ('' while it is live): its status line. */
  let stopped = '';
  /** An answer was sent from this tab (o.remember). */
  let sent = false;
  if (o.remember) {
    try {
      sent = sessionStorage.getItem(o.remember) === '1';
    } catch {
      // Storage refused: the page says it only until it is left.
    }
  }

  // The stream opens while askcore.wasm compiles; its events wait for it.
  let events = connect();
  /** How long the next reopening of the stream waits (ms); back to the least once a stream opens. */
  let retryIn = RETRY_LEAST;
  let retryTimer = 0;
  /** @type {Promise<Ready>} */
  const ready = o.load().then((core) => ({
    core,
    provider: o.createDomProvider(core, o.list, { ...o.providerOptions, submit }),
  }));
  let queue = ready.then(() => {});
  ready.catch((err) => {
    o.status.textContent = WORDS.failed + (err instanceof Error ? err.message : String(err));
    o.status.setAttribute('role', 'alert');
    /** @type {any} */ (window)[o.global] = { error: String(err) };
  });

  /** Runs fn on the loaded core, in event order. @param {(r: Ready) => void} fn */
  function later(fn) {
    queue = queue.then(() => ready.then(fn)).catch((err) => console.error(err));
  }

  /**
   * Opens the event stream. A page that shows questions names them
   * (?known=): the server first tells how each that ended meanwhile ended
   * (answered on another device, withdrawn), then the pending questions.
   */
  function connect() {
    const url = new URL(o.events, location.href);
    if (items.size) url.searchParams.set('known', [...items.keys()].slice(0, MAX_KNOWN).join(','));
    const es = new EventSource(url);
    es.addEventListener('pending', (ev) => {
      const data = JSON.parse(/** @type {MessageEvent} */ (ev).data);
      o.snapshot?.(data);
      later((r) => {
        const ids = new Set(data.items.map((/** @type {Pending} */ p) => p.id));
        for (const [id, entry] of items) if (!ids.has(id) && !entry.sending) end(id, entry, WORDS.gone);
        for (const p of data.items) add(r, p, false);
        o.changed?.();
        update();
      });
    });
    es.addEventListener('add', (ev) => {
      const p = JSON.parse(/** @type {MessageEvent} */ (ev).data);
      later((r) => {
        if (add(r, p, true)) o.arrived?.(p);
        o.changed?.();
        update();
      });
    });
    es.addEventListener('end', (ev) => {
      const e = JSON.parse(/** @type {MessageEvent} */ (ev).data);
      later(() => {
        const entry = items.get(e.id);
        if (!entry) return;
        // This page's own answer: the reply to its post settles it.
        if (entry.sending && o.ownStates.includes(e.state)) return;
        end(e.id, entry, o.endMessage ? o.endMessage(e) : e.message, e.reply);
        update();
      });
    });
    for (const [name, fn] of Object.entries(o.on ?? {})) {
      es.addEventListener(name, (ev) => fn(JSON.parse(/** @type {MessageEvent} */ (ev).data)));
    }
    es.addEventListener('open', () => {
      retryIn = RETRY_LEAST;
      later(() => update());
    });
    // A browser gives up on a stream for good after an HTTP error (a 502
    // from a proxy while a replica restarts; Chromium does on a stream's
    // first connection), and reopens it after a network error with the URL
    // it had (naming the questions shown then): either way this page
    // reopens it itself, waiting longer each time, up to RETRY_MOST.
    es.addEventListener('error', () => {
      es.close();
      if (stopped || es !== events) return;
      later(() => {
        if (!stopped) update(o.words.lost);
      });
      const wait = retryIn * (0.75 + Math.random() / 2); // pages that lost one hub do not all come back at once
      retryIn = Math.min(retryIn * 2, RETRY_MOST);
      retryTimer = setTimeout(() => {
        if (!stopped) events = connect();
      }, wait);
    });
    return es;
  }

  /**
   * Shows one pending question (once); false if it is shown already.
   * @param {Ready} r
   * @param {Pending} p
   * @param {boolean} live
   */
  function add({ core, provider }, p, live) {
    if (items.has(p.id)) return false;
    const call = /** @type {any} */ (core.normalizeRaw(JSON.stringify(p.call)));
    idOf.set(call, p.id);
    /** @type {Entry} */
    const entry = { controller: new AbortController(), sending: false, ...o.prepare?.(p, call) };
    items.set(p.id, entry);
    const settled = () => {
      if (items.get(p.id) === entry) items.delete(p.id);
      o.settled?.(entry);
      update();
    };
    provider.ask(call, { signal: entry.controller.signal }).then(settled, settled);
    o.shown?.(p, entry, live);
    return true;
  }

  /**
   * Withdraws a question from the page's open forms, saying why. When the
   * server says what the person answered elsewhere (another device's
   * reply), the form shows that answer as the outcome (the DOM provider's
   * `answered` reason), not as an error.
   * @param {string} id
   * @param {Entry} entry
   * @param {string} why
   * @param {unknown} [answered] the reply given elsewhere
   */
  function end(id, entry, why, answered) {
    items.delete(id);
    const reason = new Error(why);
    if (answered !== null && typeof answered === 'object') /** @type {any} */ (reason).answered = answered;
    entry.controller.abort(reason);
  }

  /**
   * Stops the page: no more events (at once), then, after the events that
   * came before (the last questions' ends), every question not on its way
   * (all of them, with all) withdrawn, saying why; the status line says it
   * too.
   * @param {string} why
   * @param {boolean} [all]
   */
  function stop(why, all = false) {
    stopped = why;
    events.close();
    clearTimeout(retryTimer);
    later(() => {
      for (const [id, entry] of items) if (all || !entry.sending) end(id, entry, why);
      update();
    });
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
    if (!entry || id === undefined) throw new Error(WORDS.gone);
    entry.sending = true;
    let res;
    try {
      res = await fetch(o.post, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...o.headers },
        body: JSON.stringify({ id, reply }),
        credentials: 'same-origin',
        cache: 'no-store',
        redirect: 'error',
      });
    } catch {
      entry.sending = false;
      if (stopped) {
        end(id, entry, stopped);
        update();
      }
      throw new Error(o.words.unreachable);
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
    if (res.ok) {
      remember();
      return message;
    }
    o.refused?.(res.status, id, entry, body);
    throw new Error(message || `HTTP ${res.status}`);
  }

  /** Keeps that an answer was sent from this tab (o.remember). */
  function remember() {
    if (!o.remember) return;
    sent = true;
    try {
      sessionStorage.setItem(o.remember, '1');
    } catch {
      // Said on this page; a reload will not know.
    }
  }

  /** The status line when nothing overrides it. */
  function statusText() {
    const n = items.size;
    if (stopped) return sent ? `${WORDS.sent} ${stopped}` : stopped;
    if (n) return WORDS.waiting(n);
    return sent ? WORDS.sent : WORDS.none;
  }

  /** The status line and title. @param {string} [override] */
  function update(override) {
    const n = items.size;
    o.status.textContent = override ?? statusText();
    document.title = n ? `(${n}) ${o.title}` : o.title;
    /** @type {any} */ (window)[o.global] = { ready: true, pending: n, ...o.state?.() };
  }

  return { items, later, end, stop, update };
}
