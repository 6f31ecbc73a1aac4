// The LangChain.js adapter end to end: a2a-express on loopback serving langChainHandler over
// LangChain's own fake streaming chat model, the official SDK 1.3 client streaming.
import { AIMessage, AIMessageChunk, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { within } from 'a2a-testing';
import { langChainHandler } from '../src/langchain.js';
import { agentWith, chunksOf, closeAll, statusesOf, streamed, TaskState, userRequest } from './agent-harness.js';

afterAll(closeAll);

const chunksModel = (...chunks: AIMessageChunk[]) => new FakeStreamingChatModel({ chunks });

describe('langChainHandler, with LangChain’s fake streaming chat model, to the official SDK 1.3 client', () => {
  test('streams every chunk of the model as a chunk of one artifact, in order, then completes with the usage', async () => {
    const deltas = ['The ', 'rate ', 'is ', '0.5', '.'];
    const chunks = deltas.map((content) => new AIMessageChunk({ content, id: 'm1' }));
    chunks.push(new AIMessageChunk({ content: '', id: 'm1', usage_metadata: { input_tokens: 4, output_tokens: 6, total_tokens: 10 } }));
    // The fake model keeps only a chunk's content and tool calls: its usage comes from a runnable of ours.
    const model = chunksModel(...chunks.slice(0, -1));
    const { client } = await agentWith(
      langChainHandler(async function* ({ messages, signal }) {
        yield* await model.stream(messages, { signal });
        yield chunks.at(-1)!;
      }),
    );
    const events = await streamed(client, userRequest('What is the USD to EUR rate?'));
    const streamedChunks = chunksOf(events);
    expect(streamedChunks.map((c) => c.text)).toEqual(deltas);
    expect(streamedChunks.at(-1)!.lastChunk).toBe(true);
    const last = statusesOf(events).at(-1)!;
    expect(last.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(last.metadata).toMatchObject({ usage: { inputTokens: 4, outputTokens: 6, totalTokens: 10 } });
  });

  test('shows a tool call and its result (a ToolMessage) as status updates', async () => {
    const model = chunksModel(
      new AIMessageChunk({ content: 'Let me look.', tool_calls: [{ id: 'call-1', name: 'get_rate', args: { from: 'USD', to: 'EUR' } }] }),
    );
    const { client } = await agentWith(
      langChainHandler(async function* ({ messages, signal }) {
        yield* await model.stream(messages, { signal });
        yield new ToolMessage({ content: '{"rate":0.5}', tool_call_id: 'call-1', name: 'get_rate' });
        yield new AIMessageChunk({ content: '100 USD is 50 EUR.', id: 'm2' });
      }),
    );
    const events = await streamed(client, userRequest('convert 100 USD to EUR'));
    const working = statusesOf(events).filter((s) => s.state === TaskState.TASK_STATE_WORKING && s.text !== '');
    expect(working.map((s) => s.text)).toEqual(['Calling get_rate', 'get_rate answered']);
    expect(JSON.stringify(working[0]!.parts)).toContain('"input":{"from":"USD","to":"EUR"}');
    expect(chunksOf(events).map((c) => c.text)).toEqual(['Let me look.', '100 USD is 50 EUR.']);
    expect(statusesOf(events).at(-1)!.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test('a call of ask_user is input-required, and the answer continues the turn as its ToolMessage', async () => {
    const asking = chunksModel(
      new AIMessageChunk({ content: '', tool_calls: [{ id: 'ask-1', name: 'ask_user', args: { question: 'To which currency?' } }] }),
    );
    const answering = chunksModel(new AIMessageChunk({ content: '100 USD is 85 GBP.' }));
    const given: BaseMessage[][] = [];
    const { client } = await agentWith(
      langChainHandler(({ messages, signal }) => {
        given.push(messages);
        return (messages.at(-1)?.type === 'tool' ? answering : asking).stream(messages, { signal });
      }),
    );
    const asked = statusesOf(await streamed(client, userRequest('convert 100 USD'))).at(-1)!;
    expect(asked).toMatchObject({ state: TaskState.TASK_STATE_INPUT_REQUIRED, text: 'To which currency?' });
    const answered = await streamed(client, userRequest('GBP', asked.taskId));
    expect(chunksOf(answered).map((c) => c.text)).toEqual(['100 USD is 85 GBP.']);
    expect(statusesOf(answered).at(-1)!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const history = given[1]!;
    expect(history.map((m) => m.type)).toEqual(['human', 'ai', 'tool']);
    expect((history[1] as AIMessage).tool_calls).toMatchObject([{ id: 'ask-1', name: 'ask_user' }]);
    expect(history[2]).toMatchObject({ tool_call_id: 'ask-1', content: '{"answer":"GBP"}' });
  });

  test('canceling the task aborts the model call', async () => {
    const errors: unknown[] = [];
    // A long answer, a character every 20 ms: far from done when the task is canceled.
    const model = new FakeStreamingChatModel({ sleep: 20, responses: [new AIMessage('x'.repeat(500))] });
    const { client } = await agentWith(
      langChainHandler(({ messages, signal }) =>
        model.stream(messages, { signal, callbacks: [{ handleLLMError: (error: unknown) => void errors.push(error) }] }),
      ),
    );
    let taskId: string | undefined;
    for await (const event of client.sendMessageStream(userRequest('a long story'))) {
      if (event.payload!.$case === 'artifactUpdate') {
        taskId = (event.payload!.value as { taskId: string }).taskId;
        break;
      }
    }
    const canceled = await client.cancelTask({ tenant: '', id: taskId! } as never);
    expect(canceled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    await within(
      (async () => {
        for (let i = 0; i < 500 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      })(),
      6_000,
      'the model call aborted',
    );
    expect(String(errors[0])).toMatch(/abort/i);
  });

  test('a provider error fails the task with a safe message; its text is in the log only', async () => {
    const secret = 'rate limited for key sk-live-SECRET';
    const model = new FakeStreamingChatModel({ thrownErrorString: secret });
    const { client, log } = await agentWith(langChainHandler(({ messages, signal }) => model.stream(messages, { signal })));
    const events = await streamed(client, userRequest('hello'));
    const last = statusesOf(events).at(-1)!;
    expect(last).toMatchObject({ state: TaskState.TASK_STATE_FAILED, text: 'The model could not answer. Please try again later.' });
    const task = await client.getTask({ tenant: '', id: last.taskId, historyLength: 100 } as never);
    expect(JSON.stringify([events, task])).not.toContain('SECRET');
    expect(log()).toContain('sk-live-SECRET');
  });
});
