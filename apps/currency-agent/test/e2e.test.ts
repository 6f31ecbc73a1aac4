// The currency agent as its start script runs it, with no network: rates from the snapshot.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rpc, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { validateAgentCard, type AgentCard, type TextPart } from 'a2a-types';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('currency agent, end to end', () => {
  let agent: SpawnedAgent;
  beforeAll(async () => {
    agent = await spawnAgent('node', ['dist/server.js'], {
      cwd: appDir,
      env: { PORT: '0', FRANKFURTER_URL: 'http://127.0.0.1:9', RATES_TIMEOUT_MS: '500' },
    });
  });
  afterAll(async () => expect(await agent.stop()).toBe(0));

  test('serves the reference card, with streaming and push notifications on', async () => {
    const card = (await (await fetch(`${agent.url}/.well-known/agent.json`)).json()) as AgentCard;
    expect(validateAgentCard(card)).toBe(true);
    expect(card).toMatchObject({
      name: 'Currency Agent',
      description: 'Helps with exchange rates for currencies',
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: true },
      skills: [{ id: 'convert_currency', name: 'Currency Exchange Rates Tool', tags: ['currency conversion', 'currency exchange'] }],
    });
    expect(card.skills[0]!.examples).toContain('What is exchange rate between USD and GBP?');
    expect((await fetch(`${agent.url}/.well-known/jwks.json`)).status).toBe(200);
  });

  test('works on first run with no key and no network', async () => {
    const task = (
      await rpc(agent.url, 'tasks/send', {
        id: 'first-run',
        message: { role: 'user', parts: [{ type: 'text', text: 'convert 100 USD to EUR' }] },
      })
    ).result!;
    expect(task.status.state).toBe('completed');
    const text = (task.artifacts![0]!.parts[0] as TextPart).text;
    expect(text).toMatch(/^100 USD is [\d.]+ EUR\. \(The rate service could not be reached, so this uses the offline snapshot/);
    expect(agent.output()).toContain('"understanding":"built-in parser"');
  });
});
