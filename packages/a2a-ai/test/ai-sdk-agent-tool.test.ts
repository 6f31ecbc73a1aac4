// Another A2A agent as an AI SDK tool, end to end: the AI SDK's own test model (MockLanguageModelV4)
// scripted to call the tool, the tool calling a real a2a-express agent on loopback in each
// version and binding, the model given what the agent answered (its question, then its answer).
import type { Interceptor } from 'a2a-client';
import { isStepCount, simulateReadableStream, streamText, type Tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { a2aAgentTool } from '../src/ai-sdk.js';
import { connectAgent, type RemoteAnswer } from '../src/remote-agent.js';
import { bookingCard, credentials, startBookingAgent, transports } from './remote-agent-fixture.js';

let agent: Awaited<ReturnType<typeof startBookingAgent>>;
beforeAll(async () => {
  agent = await startBookingAgent();
});
afterAll(() => agent.close());

const finish = (reason: 'stop' | 'tool-calls') => ({
  type: 'finish' as const,
  finishReason: { unified: reason, raw: undefined },
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  },
});

/**
 * One turn of a conversation: the model calls `booking` with `message`, then says "done"; the
 * tool's result, and the prompt the model was given for its second step.
 */
async function turn(booking: Tool, message: string) {
  let secondPrompt: unknown = [];
  const calls = [
    [{ type: 'tool-call', toolCallId: `call-${message}`, toolName: 'booking', input: JSON.stringify({ message }) }, finish('tool-calls')],
    [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, finish('stop')],
  ];
  let step = 0;
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      if (step === 1) secondPrompt = options.prompt;
      return { stream: simulateReadableStream({ chunks: calls[step++] as never[], initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
  const result = streamText({ model, prompt: 'Book me a table', tools: { booking }, stopWhen: isStepCount(3), maxRetries: 0 });
  await result.consumeStream();
  const steps = await result.steps;
  const results = steps.flatMap((s) => s.toolResults);
  const errors = steps.flatMap((s) => s.content.filter((c) => c.type === 'tool-error'));
  expect(errors).toEqual([]);
  expect(results).toHaveLength(1);
  return { answer: results[0]!.output as RemoteAnswer, secondPrompt: JSON.stringify(secondPrompt) };
}

/** The tool errors of a model step that calls `booking` once with `message` (and stops there). */
async function toolErrorsOf(booking: Tool, message: string): Promise<unknown[]> {
  const chunks = [{ type: 'tool-call', toolCallId: 'c', toolName: 'booking', input: JSON.stringify({ message }) }, finish('tool-calls')];
  const model = new MockLanguageModelV4({
    doStream: [{ stream: simulateReadableStream({ chunks: chunks as never[], initialDelayInMs: null, chunkDelayInMs: null }) }],
  });
  const result = streamText({ model, prompt: 'Book', tools: { booking }, maxRetries: 0 });
  await result.consumeStream();
  return (await result.steps).flatMap((s) => s.content.filter((c) => c.type === 'tool-error').map((c) => (c as { error: unknown }).error));
}

describe.each(transports)('a2aAgentTool (AI SDK) over %s', (_name, options) => {
  test('input-required reaches the model as the agent’s question; the answer continues that task, and the next request the same context', async () => {
    const booking = await a2aAgentTool(agent.url, { ...options, credentials });
    const before = agent.seen.length;

    const asked = await turn(booking, 'Book a table tonight');
    expect(asked.answer).toMatchObject({ agent: 'Booking Agent', state: 'input-required', question: 'For how many people?' });
    expect(asked.answer.note).toContain('asks for more');
    // What the model read for its next step: the question, as the tool's result.
    expect(asked.secondPrompt).toContain('For how many people?');
    expect(asked.secondPrompt).toContain('input-required');

    const answered = await turn(booking, '4 people');
    expect(answered.answer).toMatchObject({
      state: 'completed',
      text: 'Booked a table for 4.',
      data: [{ people: 4, bookingsInThisConversation: 1 }],
    });
    expect(answered.answer.question).toBeUndefined();
    expect(answered.secondPrompt).toContain('Booked a table for 4.');

    const again = await turn(booking, 'another for 2');
    expect(again.answer).toMatchObject({ state: 'completed', data: [{ people: 2, bookingsInThisConversation: 2 }] });

    const seen = agent.seen.slice(before);
    expect(seen.map((s) => s.text)).toEqual(['Book a table tonight', '4 people', 'another for 2']);
    // The answer went to the task that asked; the next request started a task of its own, in the same context.
    expect(seen[1]!.taskId).toBe(seen[0]!.taskId);
    expect(seen[2]!.taskId).not.toBe(seen[0]!.taskId);
    expect(new Set(seen.map((s) => s.contextId)).size).toBe(1);
  });
});

describe('a2aAgentTool (AI SDK)', () => {
  test('is described to the model from the card: its description, skills and their examples', async () => {
    const booking = await a2aAgentTool(agent.url, { credentials });
    expect(booking.description).toContain('"Booking Agent"');
    expect(booking.description).toContain(bookingCard.description);
    expect(booking.description).toContain('Book a table: Books a table for a party; asks how many people when not told.');
    expect(booking.description).toContain('"a table for 4 tonight"');
    const named = await a2aAgentTool(agent.url, { credentials, description: 'Books tables.' });
    expect(named.description).toBe('Books tables.');
  });

  test('without a version asked, speaks the newest the card offers (1.0), and a card already read is used as it is', async () => {
    const remote = await connectAgent(agent.url, { credentials });
    expect(remote.protocol).toBe('1.0');
    expect(remote.name).toBe('booking_agent');
    // The agent's base URL or its card's URL alike.
    expect((await connectAgent(`${agent.url}/.well-known/agent-card.json`, { credentials })).protocol).toBe('1.0');
    const fetched: string[] = [];
    const fromCard = await a2aAgentTool(remote.card, {
      credentials,
      fetch: (input, init) => {
        fetched.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      },
    });
    expect((await turn(fromCard, 'a table for 3')).answer).toMatchObject({ state: 'completed', text: 'Booked a table for 3.' });
    expect(fetched.some((url) => url.includes('.well-known'))).toBe(false);
    expect(fetched.length).toBeGreaterThan(0);
  });

  test('two tools are two conversations; a tool given a conversation continues it', async () => {
    const remote = await connectAgent(agent.url, { credentials });
    const conversation = remote.conversation();
    const first = await a2aAgentTool(remote, { conversation });
    const sameConversation = await a2aAgentTool(remote, { conversation });
    const other = await a2aAgentTool(remote);
    const before = agent.seen.length;
    await turn(first, 'a table for 2');
    await turn(sameConversation, 'a table for 5');
    await turn(other, 'a table for 6');
    const contexts = agent.seen.slice(before).map((s) => s.contextId);
    expect(contexts[1]).toBe(contexts[0]);
    expect(contexts[2]).not.toBe(contexts[0]);
  });

  test('its calls go through the interceptors given; without the credentials the agent refuses them, and the model gets a tool error', async () => {
    const methods: string[] = [];
    const recorder: Interceptor = { before: (call) => void methods.push(call.method) };
    const booking = await a2aAgentTool(agent.url, { credentials, interceptors: [recorder], preferredBinding: 'HTTP+JSON' });
    await turn(booking, 'a table for 2');
    expect(methods).toContain('SendStreamingMessage');

    const errors = await toolErrorsOf(await a2aAgentTool(agent.url, {}), 'a table for 2');
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/authentication required/i);
  });

  test('a call that outlasts callTimeoutMs is given up: the model gets a tool error, not a hang', async () => {
    const booking = await a2aAgentTool(agent.url, { credentials, callTimeoutMs: 300 });
    const errors = await toolErrorsOf(booking, 'wait forever');
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/abort|timeout|timed out/i);
  });
});
