// Another A2A agent as a LangChain.js tool, end to end: LangChain's own fake chat model scripted
// to call the tool, the tool (run as LangChain runs a model's tool call) calling a real
// a2a-express agent on loopback, the model given the ToolMessage (the question, then the answer).
import { AIMessageChunk, type BaseMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { a2aAgentTool } from '../src/langchain.js';
import type { RemoteAnswer } from '../src/remote-agent.js';
import { credentials, startBookingAgent, transports } from './remote-agent-fixture.js';

let agent: Awaited<ReturnType<typeof startBookingAgent>>;
beforeAll(async () => {
  agent = await startBookingAgent();
});
afterAll(() => agent.close());

/**
 * One turn: the fake model calls the tool with `message`; its call is run as LangChain runs one
 * (`tool.invoke(toolCall)`, a ToolMessage), which the conversation then holds for the model.
 */
async function turn(booking: DynamicStructuredTool, conversation: BaseMessage[], message: string): Promise<RemoteAnswer> {
  conversation.push(new HumanMessage(message));
  const model = new FakeStreamingChatModel({
    chunks: [
      new AIMessageChunk({ content: '', tool_calls: [{ id: `call-${conversation.length}`, name: booking.name, args: { message } }] }),
    ],
  });
  let said: AIMessageChunk | undefined;
  for await (const chunk of await model.stream(conversation)) said = said ? said.concat(chunk) : chunk;
  conversation.push(said!);
  const [call] = said!.tool_calls ?? [];
  expect(call).toMatchObject({ name: 'booking_agent', args: { message } });
  const result = (await booking.invoke({ ...call!, type: 'tool_call' })) as ToolMessage;
  conversation.push(result);
  expect(result.tool_call_id).toBe(call!.id);
  return JSON.parse(String(result.content)) as RemoteAnswer;
}

describe.each(transports.filter(([name]) => /HTTP\+JSON|0\.3|gRPC/.test(name)))('a2aAgentTool (LangChain.js) over %s', (_name, options) => {
  test('input-required comes back as the agent’s question; the answer continues that task, the next request the same context', async () => {
    const booking = await a2aAgentTool(`${agent.url}/.well-known/agent-card.json`, { ...options, credentials });
    expect(booking.name).toBe('booking_agent');
    expect(booking.description).toContain('Book a table: Books a table for a party');
    const conversation: BaseMessage[] = [];
    const before = agent.seen.length;

    const asked = await turn(booking, conversation, 'Book a table tonight');
    expect(asked).toMatchObject({ state: 'input-required', question: 'For how many people?' });
    expect(asked.note).toContain('Call this tool again with the answer');
    expect(await turn(booking, conversation, '3 of us')).toMatchObject({
      state: 'completed',
      text: 'Booked a table for 3.',
      data: [{ people: 3, bookingsInThisConversation: 1 }],
    });
    expect(await turn(booking, conversation, 'and one for 7 tomorrow')).toMatchObject({
      state: 'completed',
      data: [{ people: 7, bookingsInThisConversation: 2 }],
    });

    const seen = agent.seen.slice(before);
    expect(seen[1]!.taskId).toBe(seen[0]!.taskId);
    expect(seen[2]!.taskId).not.toBe(seen[0]!.taskId);
    expect(new Set(seen.map((s) => s.contextId)).size).toBe(1);
    // What the model is given next: the ToolMessages, the question among them.
    expect(conversation.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human', 'ai', 'tool', 'human', 'ai', 'tool']);
    expect(String(conversation[2]!.content)).toContain('For how many people?');
  });
});

test('a2aAgentTool (LangChain.js): the run’s abort signal gives the call up', async () => {
  const booking = await a2aAgentTool(agent.url, { credentials });
  const controller = new AbortController();
  const call = booking.invoke({ message: 'wait for me' }, { signal: controller.signal });
  // Aborted once the agent has the message (it waits until the call is given up).
  for (let i = 0; i < 100 && !agent.seen.some((s) => s.text === 'wait for me'); i++) await new Promise((r) => setTimeout(r, 20));
  controller.abort();
  await expect(call).rejects.toThrow(/abort/i);
});
