// @askcore/askcore/hub: a provider that asks through askcore-hub, so that
// the question outlives the process and reaches the person on any device
// (the hub's inbox). The JS twin of Go's package hub, with its behaviour:
//
// Each ask is posted to the hub (POST /v1/asks with the call, its tool
// call id and session id: the same ids give the same ask, so an agent that
// restarts and replays its tool call attaches to its question), then
// long-polled (GET /v1/asks/{id}?wait=) until the person replies; the
// reply, in the seam's shapes ({lines}, {picks}, {form}, {decline: true}),
// is handed back for the asking side's core to resolve. An abort withdraws
// the ask (DELETE /v1/asks/{id}). A lost connection, a hub that restarts,
// a 408, a 429 or a 5xx are retried with a capped backoff for as long as
// the ask lasts; the hub's other refusals (a wrong or revoked token, an
// unknown ask) end the ask with the core's ASK_FAILED quoting the hub. An
// ask the hub expired (the operator's deadline for the agent) is the
// core's ASK_TIMEOUT; one withdrawn at the hub, the core's "withdrawn".
// Nothing ever answers for the person.

import { abortedError } from './lib/interaction.js';

/** The longest long poll the hub takes, in seconds. */
const MAX_POLL_S = 60;

/**
 * @typedef {{pollSeconds?: number, maxBackoffMs?: number, fetch?: typeof globalThis.fetch}} HubProviderOptions
 */

/** A refusal of the hub: not retried. */
class Refusal extends Error {
  /** @param {unknown} error what the ask ends with */
  constructor(error) {
    super('refused');
    this.error = error;
  }
}

/**
 * A provider that asks through the hub at `url` with an agent's token
 * (askcore-hub agent add).
 * @param {import('./lib/core.js').Core} core the core whose words end an ask (ASK_TIMEOUT, ASK_ABORTED, ASK_FAILED)
 * @param {string | URL} url the hub, e.g. "http://127.0.0.1:7433"
 * @param {string} token
 * @param {HubProviderOptions} [options]
 */
export function createHubProvider(core, url, token, options = {}) {
  if (!core || typeof core.fail !== 'function') throw new TypeError('createHubProvider(core, url, token): core is a loaded core');
  const base = new URL(String(url));
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('createHubProvider(core, url, token): url is the hub\'s http(s) URL');
  if (typeof token !== 'string' || token === '') throw new TypeError('createHubProvider(core, url, token): token is the agent\'s token');
  const root = base.href.replace(/\/+$/, '');
  const poll = Math.min(Math.max(Math.floor(options.pollSeconds ?? MAX_POLL_S), 1), MAX_POLL_S);
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const doFetch = options.fetch ?? globalThis.fetch;

  /**
   * One request: the hub's JSON, or throws a Refusal (not retried) or
   * what a retry may cure (no connection, 408, 429, 5xx).
   * @param {string} method
   * @param {string} path
   * @param {string | undefined} body
   * @param {AbortSignal | undefined} signal
   */
  async function once(method, path, body, signal) {
    const res = await doFetch(root + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body,
      signal,
    });
    const text = await res.text();
    if (res.status === 200 || res.status === 201) {
      try {
        return JSON.parse(text);
      } catch {
        throw new Error('hub: unreadable answer');
      }
    }
    if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
      let detail = `the hub refused the ask (${res.status} ${res.statusText})`.replace(/ \)$/, ')');
      try {
        const e = JSON.parse(text);
        if (e && typeof e.code === 'string' && e.code !== '') detail = `the hub refused the ask: ${e.code}: ${e.message}`;
      } catch {
        // the status says it
      }
      throw new Refusal(core.fail({ situation: 'provider_failed', detail }));
    }
    throw new Error(`hub: ${res.status}`);
  }

  /**
   * once, retried with a capped, jittered backoff until it answers, the
   * hub refuses, or the signal aborts.
   * @param {string} method
   * @param {string} path
   * @param {string | undefined} body
   * @param {AbortSignal | undefined} signal
   */
  async function retry(method, path, body, signal) {
    let backoff = 100;
    for (;;) {
      if (signal?.aborted) throw abortedError(core, signal);
      try {
        return await once(method, path, body, signal);
      } catch (err) {
        if (err instanceof Refusal) throw err.error;
        if (signal?.aborted) throw abortedError(core, signal);
      }
      await sleep(backoff / 2 + Math.random() * (backoff / 2), signal);
      backoff = Math.min(2 * backoff, maxBackoffMs);
    }
  }

  /** DELETE the ask, once, within 5 seconds. @param {string} id */
  async function withdraw(id) {
    try {
      await once('DELETE', `/v1/asks/${encodeURIComponent(id)}`, undefined, AbortSignal.timeout(5000));
    } catch {
      // The hub shows it until it is back; the agent has moved on.
    }
  }

  return {
    /**
     * @param {import('./index.js').Question} question
     * @param {{signal?: AbortSignal}} [opts]
     */
    async ask(question, opts = {}) {
      const { signal } = opts;
      const from = question.from ?? {};
      const body = JSON.stringify({
        arguments: question.raw,
        toolCallId: from.toolCallId || `askcore-${globalThis.crypto.randomUUID().replaceAll('-', '')}`,
        ...(from.sessionId ? { sessionId: from.sessionId } : {}),
      });
      let ask;
      try {
        ask = await retry('POST', '/v1/asks', body, signal);
      } catch (err) {
        if (signal?.aborted) {
          // The ask may have been made before the abort: the same ids
          // find it (idempotent), and it is withdrawn.
          try {
            const made = await once('POST', '/v1/asks', body, AbortSignal.timeout(5000));
            await withdraw(made.id);
          } catch {
            // nothing was made, or the hub is gone
          }
        }
        throw err;
      }
      for (;;) {
        switch (ask.state) {
          case 'pending':
            break;
          case 'replied':
            return ask.reply;
          case 'expired':
            throw core.fail({ situation: 'timeout', ms: ask.deadlineMs });
          case 'withdrawn':
            throw core.fail({ situation: 'withdrawn' });
          default:
            throw core.fail({ situation: 'provider_failed', detail: `the hub answered the state ${ask.state}` });
        }
        try {
          ask = await retry('GET', `/v1/asks/${encodeURIComponent(ask.id)}?wait=${poll}`, undefined, signal);
        } catch (err) {
          if (signal?.aborted) await withdraw(ask.id);
          throw err;
        }
      }
    },
  };
}

/** @param {number} ms @param {AbortSignal | undefined} signal */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve(undefined);
    }
  });
}
