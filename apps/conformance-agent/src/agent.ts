// The conformance agent: behaves as the scenarios of the official A2A conformance kit
// (a2aproject/a2a-tck, branch 1.0-dev, scenarios/*.feature) describe. The kit says what it
// wants in the message's `messageId`: its prefix names a scenario, and the agent plays it. The
// kit's 0.3 line sends messages of no scenario and then continues or cancels their tasks, so
// those tasks wait for input (README).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  a2aRouter,
  artifact,
  completed,
  filePart,
  inputRequired,
  rejected,
  reply,
  working,
  type A2ARouter,
  type A2ARouterOptions,
  type AgentCardInput,
  type TaskContext,
  type TaskHandler,
  type TaskUpdate,
} from 'a2a-express';

export const conformanceCard: AgentCardInput = {
  name: 'Conformance Agent',
  description: 'Plays the scenarios of the A2A conformance kit (a2aproject/a2a-tck): the prefix of each message id names what it does.',
  version: '0.1.0',
  // What the kit's content-type scenario needs refused: anything but text, JSON, and files of
  // ordinary kinds (application/x-unsupported-tck-type gets -32005).
  defaultInputModes: ['text/plain', 'application/json', 'application/octet-stream', 'text/*', 'image/*'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    {
      id: 'tck',
      name: 'TCK Conformance',
      description: 'Completes, streams, rejects, asks for input or answers with a message, as the message id says.',
      tags: ['tck'],
      examples: ['messageId tck-complete-task-1', 'messageId tck-artifact-text-1'],
    },
  ],
};

export interface ConformanceOptions {
  /**
   * How long `test-resubscribe-message-id` keeps its task working, so that a client can
   * resubscribe meanwhile. The kit asks for twice its streaming timeout (2 s): default 4,000 ms.
   */
  resubscribeWaitMs?: number;
}

/** The file the artifact scenarios return: `output.txt`, `text/plain`, the bytes "tck". */
const outputFile = { name: 'output.txt', mimeType: 'text/plain', bytes: 'dGNr' };

type Scenario = (ctx: TaskContext, options: Required<ConformanceOptions>) => AsyncGenerator<TaskUpdate, void>;

/** working, one artifact, completed: the shape of most streaming scenarios. */
const streamOf = (...parts: Parameters<typeof artifact>): Scenario =>
  async function* () {
    yield working();
    yield artifact(...parts);
    yield completed();
  };

/** One artifact, then completed (no working step), as the unary artifact scenarios are written. */
const artifactThenComplete = (...parts: Parameters<typeof artifact>): Scenario =>
  async function* () {
    yield artifact(...parts);
    yield completed();
  };

/**
 * Each scenario by its messageId prefix, longest first where one prefix starts another
 * (`tck-artifact-file-url` before `tck-artifact-file`): the first that matches plays.
 */
export const scenarios: readonly (readonly [prefix: string, play: Scenario])[] = [
  [
    'tck-stream-artifact-chunked',
    async function* () {
      yield working();
      yield artifact('chunk-1 ', { append: true });
      yield artifact('chunk-2', { append: true, lastChunk: true });
      yield completed();
    },
  ],
  [
    'test-resubscribe-message-id',
    async function* (ctx, { resubscribeWaitMs }) {
      yield working();
      // Aborts when the task is canceled.
      await sleep(resubscribeWaitMs, undefined, { signal: ctx.signal });
      yield completed();
    },
  ],
  ['tck-stream-artifact-text', streamOf('Streamed text content')],
  ['tck-stream-artifact-file', streamOf(filePart(outputFile))],
  ['tck-stream-ordering-001', streamOf('Ordered output')],
  ['tck-stream-001', streamOf('Stream hello from TCK')],
  [
    'tck-stream-002',
    async function* () {
      yield completed();
    },
  ],
  ['tck-stream-003', streamOf('Stream task lifecycle')],
  [
    'tck-artifact-file-url',
    artifactThenComplete(filePart({ name: 'output.txt', mimeType: 'text/plain', uri: 'https://example.com/output.txt' })),
  ],
  [
    'tck-message-response',
    async function* () {
      yield reply('Direct message response');
    },
  ],
  [
    'tck-input-required',
    async function* () {
      yield inputRequired('Send more input to continue.');
    },
  ],
  [
    'tck-complete-task',
    async function* () {
      yield completed('Hello from TCK');
    },
  ],
  ['tck-artifact-text', artifactThenComplete('Generated text content')],
  ['tck-artifact-file', artifactThenComplete(filePart(outputFile))],
  ['tck-artifact-data', artifactThenComplete({ type: 'data', data: { key: 'value', count: 42 } })],
  [
    'tck-reject-task',
    async function* () {
      yield rejected('rejected');
    },
  ],
];

/**
 * A message of no scenario. The kit's scenarios complete it (its other tests send such messages
 * and expect a completed task); its 0.3 line continues and cancels the tasks of such messages,
 * whose ids do not start with `tck-`, so those wait for input.
 */
function noScenario(messageId: string): Scenario {
  if (messageId.startsWith('tck-')) {
    return async function* () {
      yield completed(`Unhandled messageId prefix: ${messageId}`);
    };
  }
  return async function* () {
    yield inputRequired('Received. Send another message to continue this task, or cancel it.');
  };
}

export function createConformanceHandler({ resubscribeWaitMs = 4_000 }: ConformanceOptions = {}): TaskHandler {
  const options = { resubscribeWaitMs };
  return (ctx) => {
    const messageId = ctx.message.messageId ?? '';
    const play = scenarios.find(([prefix]) => messageId.startsWith(prefix))?.[1] ?? noScenario(messageId);
    return play(ctx, options);
  };
}

/** The extension the conformance kit's CORE-CAP-004 looks for in a card, marked required. */
export const TCK_REQUIRED_EXTENSION = 'urn:a2a:tck:required-extension';

/** What the conformance agent is made of, for any server: its options, less the card. */
export type ConformanceAgentOptions = ConformanceOptions & Omit<A2ARouterOptions, 'card'> & { requireTckExtension?: boolean };

/**
 * The conformance agent's handler and options, for `a2aRouter` and the other servers alike
 * (`a2aNodeHandler`, `a2aFetchHandler`). `requireTckExtension` declares the kit's extension as
 * required, which every 0.3 and 1.0 call must then ask for: the kit's CORE-CAP-004 runs against
 * it, and its other tests (which ask for no extension) do not pass.
 */
export function conformanceAgent(options: ConformanceAgentOptions = {}): { handler: TaskHandler; options: A2ARouterOptions } {
  const { resubscribeWaitMs, requireTckExtension = false, ...routerOptions } = options;
  return {
    handler: createConformanceHandler({ resubscribeWaitMs }),
    options: {
      card: conformanceCard,
      // The kit gives many of its different sends one message id (a session's "complete-task",
      // "input-required") and expects a task for each: a message id alone is no retry here
      // (spec 1.0 3.3.1 makes that detection a MAY); the Idempotency-Key header still is.
      retriesByMessageId: false,
      ...(requireTckExtension && {
        extensions: [
          { uri: TCK_REQUIRED_EXTENSION, description: 'the conformance kit’s required extension (CORE-CAP-004)', required: true },
        ],
      }),
      ...routerOptions,
    },
  };
}

/** The conformance agent's router; mount it with `app.use(...)`. */
export function conformanceRouter(options: ConformanceAgentOptions = {}): A2ARouter {
  const agent = conformanceAgent(options);
  return a2aRouter(agent.handler, agent.options);
}
