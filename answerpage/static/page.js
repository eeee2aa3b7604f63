// The answer page: the questions pending on the asking program, each
// rendered by the DOM provider from the core's ops in this browser
// (askcore.wasm, the same bytes as every other surface), and the person's
// reply posted back; the page client (client.js) does all that, shared
// with the hub's inbox. Every text the model wrote is set as text.
import { load } from './host/browser.js';
import { createDomProvider } from './host/dom.js';
import { startClient } from './client.js';

const base = new URL('./', location.href); // /TOKEN/

/** When the first question was painted (ms since the navigation began), for make bench and the tests. */
let firstQuestionMs = 0;

/** This page's words: of the asking program, which serves it. */
const WORDS = {
  lost: 'The connection to the asking program was lost; trying again…',
  unreachable: 'The answer could not be sent: the asking program cannot be reached.',
  bye: 'The asking program stopped serving this page; you can close it.',
  elsewhere: '(answered in another window)',
};

const client = startClient({
  load,
  createDomProvider,
  list: /** @type {HTMLElement} */ (document.getElementById('questions')),
  status: /** @type {HTMLElement} */ (document.getElementById('status')),
  title: 'askcore',
  global: '__askcorePage',
  events: new URL('events', base),
  post: new URL('answer', base),
  words: WORDS,
  ownStates: ['answered', 'declined'],
  // "Your answer was sent", per page (its token), for the tab's life.
  remember: `askcore-sent:${base.pathname}`,
  endMessage: (e) => (e.state === 'answered' || e.state === 'declined' ? `${e.message}\n${WORDS.elsewhere}` : e.message),
  // Who asks, shown above the question.
  prepare: (p, call) => {
    if (p.from) call.from = p.from;
    return {};
  },
  shown: () => {
    if (firstQuestionMs) return;
    firstQuestionMs = -1;
    requestAnimationFrame(() => setTimeout(() => {
      firstQuestionMs = performance.now();
      client.update();
    }));
  },
  state: () => ({ firstQuestionMs: Math.max(firstQuestionMs, 0) }),
  // The program exits: no reconnecting. A question whose answer is on its
  // way is settled by the reply.
  on: { bye: () => client.stop(WORDS.bye) },
});
