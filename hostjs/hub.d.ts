// @askcore/askcore/hub: a provider that asks through askcore-hub.
import type { Core, Provider } from './index.js';

export interface HubProviderOptions {
  /** The length of each long poll, 1 to 60 seconds. Default 60. */
  pollSeconds?: number;
  /** The cap of the wait between attempts while the hub cannot be reached. Default 10000. */
  maxBackoffMs?: number;
  /** The fetch to send the requests with. Default globalThis.fetch. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A provider that asks through the hub at `url` with an agent's token
 * (`askcore-hub agent add`): the call is posted with its tool call id and
 * session id (the same ids attach to the same ask, so a restarted agent
 * that replays its tool call gets the person's reply), long-polled until
 * the person replies in the hub's inbox, and the reply ({lines}, {picks},
 * {form} or {decline: true}) handed back for the core to resolve. An abort
 * withdraws the ask; a hub that cannot be reached is retried with a capped
 * backoff; the hub's deadline for the agent is the core's ASK_TIMEOUT; a
 * refusal (a wrong or revoked token) the core's ASK_FAILED quoting it.
 */
export declare function createHubProvider(core: Core, url: string | URL, token: string, options?: HubProviderOptions): Provider;
