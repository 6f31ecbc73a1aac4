// The AI SDK adapter end to end: a2a-express on loopback serving aiSdkHandler over the AI SDK's
// own test model (MockLanguageModelV4, scripted streams), the official SDK 1.3 client streaming.
import { isStepCount, jsonSchema, simulateReadableStream, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { within } from 'a2a-testing';
import { aiSdkHandler, askUserTool } from '../src/ai-sdk.js';
import type { ModelTurnOptions } from '../src/model-turn.js';
import { aborted, agentWith, chunksOf, closeAll, statusesOf, streamed, TaskState, userRequest } from './agent-harness.js';

afterAll(closeAll);

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const finish = (reason: 'stop' | 'tool-calls', input = 3, output = 5) => ({
  type: 'finish' as const,
  finishReason: { unified: reason, raw: undefined },
  usage: usage(input, output),
});
const textParts = (...deltas: string[]) => [
  { type: 'text-start' as const, id: 't1' },
  ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't1', delta })),
  { type: 'text-end' as const, id: 't1' },
];
const toolCall = (toolCallId: string, toolName: string, input: unknown) => ({
  type: 'tool-call' as const,
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});
/** A model whose calls stream these scripts, one a call, with no delay. */
const scripted = (...calls: unknown[][]) =>
  new MockLanguageModelV4({
    doStream: calls.map((chunks) => ({
      stream: simulateReadableStream({ chunks: chunks as never[], initialDelayInMs: null, chunkDelayInMs: null }),
    })),
  });

const rateTool = tool({
  description: 'The exchange rate between two currencies',
  inputSchema: jsonSchema<{ from: string; to: string }>({
    type: 'object',
    properties: { from: { type: 'string' }, to: { type: 'string' } },
    required: ['from', 'to'],
  }),
  execute: async ({ from, to }) => ({ from, to, rate: 0.5 }),
});

function modelAgent(model: MockLanguageModelV4, options: ModelTurnOptions = {}) {
  return agentWith(
    aiSdkHandler(
      ({ messages, abortSignal }) =>
        streamText({
          model,
          instructions: 'You convert currencies.',
          messages,
          abortSignal,
          tools: { get_rate: rateTool, ask_user: askUserTool() },
          stopWhen: isStepCount(5),
          maxRetries: 0,
          onError: () => {},
        }),
      options,
    ),
  );
}

describe('aiSdkHandler, with the AI SDK test model, to the official SDK 1.3 client', () => {
  test('streams every text delta as a chunk of one artifact, in order, then completes with the usage', async () => {
    const deltas = ['The ', 'rate ', 'is ', '0.5', '.'];
    const { client } = await modelAgent(scripted([...textParts(...deltas), finish('stop', 7, 11)]));
    const events = await streamed(client, userRequest('What is the USD to EUR rate?'));
    expect(events[0]!.$case).toBe('task');
    const chunks = chunksOf(events);
    expect(chunks.map((c) => c.text)).toEqual(deltas);
    expect(chunks.map((c) => c.append)).toEqual([false, true, true, true, true]);
    expect(chunks.map((c) => c.lastChunk)).toEqual([false, false, false, false, true]);
    const last = statusesOf(events).at(-1)!;
    expect(last.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(last.metadata).toMatchObject({ usage: { inputTokens: 7, outputTokens: 11, totalTokens: 18 } });
  });

  test('answers with one message instead, when asked to', async () => {
    const { client } = await modelAgent(scripted([...textParts('Hello', ', world'), finish('stop')]), { answer: 'reply' });
    const events = await streamed(client, userRequest('hi'));
    expect(events.map((e) => e.$case)).toEqual(['message']);
    const message = events[0]!.value as { parts: { content: { value: string } }[] };
    expect(message.parts.map((p) => p.content.value).join('')).toBe('Hello, world');
  });

  test('shows a tool call and its result as status updates, and the model goes on with the result', async () => {
    const model = scripted(
      [...textParts('Let me look.'), toolCall('call-1', 'get_rate', { from: 'USD', to: 'EUR' }), finish('tool-calls')],
      [...textParts('100 USD is 50 EUR.'), finish('stop')],
    );
    const { client } = await modelAgent(model);
    const events = await streamed(client, userRequest('convert 100 USD to EUR'));
    const working = statusesOf(events).filter((s) => s.state === TaskState.TASK_STATE_WORKING && s.text !== '');
    expect(working.map((s) => s.text)).toEqual(['Calling get_rate', 'get_rate answered']);
    expect(JSON.stringify(working[0]!.parts)).toContain('"toolName":"get_rate"');
    expect(JSON.stringify(working[1]!.parts)).toContain('"rate":0.5');
    // The text said before the call comes before its status; the answer after its result.
    const order = events
      .filter((e) => e.$case !== 'task')
      .map((e) => (e.$case === 'artifactUpdate' ? chunksOf([e])[0]!.text : statusesOf([e])[0]!.text));
    expect(order.indexOf('Let me look.')).toBeLessThan(order.indexOf('Calling get_rate'));
    expect(order.indexOf('get_rate answered')).toBeLessThan(order.indexOf('100 USD is 50 EUR.'));
    expect(statusesOf(events).at(-1)!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The second call of the model had the tool's result.
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain('"rate":0.5');
  });

  test('a tool that throws shows as failed, its error in the log only, and the model goes on', async () => {
    const failing = tool({
      description: 'A rate service that is down',
      inputSchema: jsonSchema<{ from: string }>({ type: 'object', properties: { from: { type: 'string' } } }),
      execute: async (): Promise<{ rate: number }> => {
        throw new Error('rates backend at 10.0.0.7 refused token tok-SECRET');
      },
    });
    const model = scripted(
      [toolCall('call-1', 'get_rate', { from: 'USD' }), finish('tool-calls')],
      [...textParts('The rate service is down.'), finish('stop')],
    );
    const { client, log } = await agentWith(
      aiSdkHandler(({ messages, abortSignal }) =>
        streamText({ model, messages, abortSignal, tools: { get_rate: failing }, stopWhen: isStepCount(3), onError: () => {} }),
      ),
    );
    const events = await streamed(client, userRequest('rate?'));
    expect(statusesOf(events).map((s) => s.text)).toContain('get_rate failed');
    expect(statusesOf(events).at(-1)!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(events)).not.toContain('SECRET');
    expect(log()).toContain('tok-SECRET');
  });

  test('a call of the tool that asks the user is input-required, and the answer continues the turn', async () => {
    const model = scripted(
      [toolCall('ask-1', 'ask_user', { question: 'Which currency should I convert to?' }), finish('tool-calls')],
      [...textParts('100 USD is 85 GBP.'), finish('stop')],
    );
    const { client } = await modelAgent(model);
    const first = await streamed(client, userRequest('convert 100 USD'));
    const asked = statusesOf(first).at(-1)!;
    expect(asked.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.text).toBe('Which currency should I convert to?');

    const second = await streamed(client, userRequest('GBP', asked.taskId));
    expect(chunksOf(second).map((c) => c.text)).toEqual(['100 USD is 85 GBP.']);
    expect(statusesOf(second).at(-1)).toMatchObject({ taskId: asked.taskId, state: TaskState.TASK_STATE_COMPLETED });
    // The model was given its question and the user's answer as that tool's result.
    const prompt = model.doStreamCalls[1]!.prompt;
    expect(prompt.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'ask-1', toolName: 'ask_user' }] });
    expect(prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'ask-1', output: { type: 'json', value: { answer: 'GBP' } } }],
    });
    expect(prompt.find((m) => m.role === 'user')).toMatchObject({ content: [{ type: 'text', text: 'convert 100 USD' }] });
  });

  test('sends reasoning as working messages when asked, and not otherwise', async () => {
    const script = () => [
      { type: 'reasoning-start', id: 'r1' },
      { type: 'reasoning-delta', id: 'r1', delta: 'The user wants ' },
      { type: 'reasoning-delta', id: 'r1', delta: 'a greeting.' },
      { type: 'reasoning-end', id: 'r1' },
      ...textParts('Hi!'),
      finish('stop'),
    ];
    const shown = await modelAgent(scripted(script()), { reasoning: true });
    const withReasoning = statusesOf(await streamed(shown.client, userRequest('hello')));
    expect(withReasoning.map((s) => s.text)).toContain('The user wants a greeting.');
    const hidden = await modelAgent(scripted(script()));
    const events = await streamed(hidden.client, userRequest('hello'));
    expect(JSON.stringify(events)).not.toContain('The user wants');
  });

  test('canceling the task aborts the model call', async () => {
    let modelSignal: AbortSignal | undefined;
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        modelSignal = abortSignal;
        // The first words, then nothing until the call is aborted (the last delta is held back
        // until the next, to be sent as the last chunk: two, for one to reach the client).
        const stream = new ReadableStream({
          start(controller) {
            for (const part of textParts('The first ', 'words')) if (part.type !== 'text-end') controller.enqueue(part);
            abortSignal?.addEventListener('abort', () => controller.error(abortSignal.reason), { once: true });
          },
        });
        return { stream };
      },
    });
    const { client } = await modelAgent(model);
    const events = client.sendMessageStream(userRequest('tell me a long story'));
    let taskId: string | undefined;
    for await (const event of events) {
      if (event.payload!.$case === 'artifactUpdate') {
        taskId = (event.payload!.value as { taskId: string }).taskId;
        break;
      }
    }
    expect(modelSignal!.aborted).toBe(false);
    const canceled = await client.cancelTask({ tenant: '', id: taskId! } as never);
    expect(canceled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    await within(aborted(modelSignal!), 5_000, 'the model call aborted');
  });

  test('a provider error fails the task with a safe message; its text is in the log only', async () => {
    const secret = 'upstream 401: invalid key sk-live-SECRET for org-PRIVATE';
    const thrown = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error(secret);
      },
    });
    const inStream = scripted([...textParts('Partial '), { type: 'error', error: new Error(secret) }]);
    for (const model of [thrown, inStream]) {
      const { client, log } = await modelAgent(model);
      const events = await streamed(client, userRequest('hello'));
      const last = statusesOf(events).at(-1)!;
      expect(last.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(last.text).toBe('The model could not answer. Please try again later.');
      const task = await client.getTask({ tenant: '', id: last.taskId, historyLength: 100 } as never);
      for (const seen of [JSON.stringify(events), JSON.stringify(task)]) {
        expect(seen).not.toContain('SECRET');
        expect(seen).not.toContain('invalid key');
      }
      expect(log()).toContain('sk-live-SECRET');
    }
  });
});
