// Compiled by `tsc --noEmit` only: exercises @askcore/askcore/hub's declarations.
import { load, UserInteraction, type Provider } from '@askcore/askcore';
import { createHubProvider, type HubProviderOptions } from '@askcore/askcore/hub';

export async function hubTypes(): Promise<void> {
  const core = await load();
  const options: HubProviderOptions = { pollSeconds: 30, maxBackoffMs: 5000, fetch: globalThis.fetch };
  const provider: Provider = createHubProvider(core, 'http://127.0.0.1:7433', 'askcore_agent_x', options);
  createHubProvider(core, new URL('https://hub.example.com'), 'askcore_agent_x');
  const ui = new UserInteraction(core);
  const dispose: () => void = ui.register(provider);
  dispose();
  // @ts-expect-error the token is a string
  createHubProvider(core, 'http://127.0.0.1:7433', 42);
  // @ts-expect-error pollSeconds is a number
  createHubProvider(core, 'http://127.0.0.1:7433', 't', { pollSeconds: '60' });
}
