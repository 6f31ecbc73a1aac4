// The echo agent: the smallest real agent on a2aRouter. Clone this app to start a new agent:
// change the card, replace the handler's body, keep the rest.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  a2aRouter,
  artifact,
  completed,
  inputRequired,
  withCheckpoint,
  working,
  type A2ARouter,
  type A2ARouterOptions,
  type AgentCardInput,
  type JsonValue,
  type Part,
  type TaskHandler,
} from 'a2a-express';

export const echoCard: AgentCardInput = {
  name: 'Echo Agent',
  description: 'Sends back whatever it receives — text, files and data — streaming the echo in chunks.',
  version: '0.1.0',
  defaultInputModes: ['text/plain', 'application/octet-stream', 'application/json'],
  defaultOutputModes: ['text/plain', 'application/octet-stream', 'application/json'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Returns the message it is sent as an artifact; asks for input when the message is empty.',
      tags: ['echo', 'testing'],
      examples: ['hello world'],
    },
  ],
};

export interface EchoOptions {
  /** Pause between streamed chunks, in milliseconds (to show and test long tasks). Default 0. */
  chunkDelayMs?: number;
}

/**
 * Echoes the message back as one artifact, streamed in several chunks. Each chunk carries a
 * checkpoint (how many chunks are sent), so that a turn resumed on another replica after its
 * process was lost (`A2A_ON_INTERRUPTED=resume`) goes on with the next chunk; its final status
 * then says so in its metadata (`echo.resumed`: the attempt, and the checkpoint it went on from).
 */
export function createEchoHandler({ chunkDelayMs = 0 }: EchoOptions = {}): TaskHandler {
  return async function* echo(ctx) {
    const parts = ctx.message.parts.filter(hasContent);
    if (parts.length === 0) {
      yield inputRequired('There is nothing to echo. Send some text, a file or data.');
      return;
    }
    const { resumed } = ctx;
    // When each run of a turn began and ended (debug; the log line says which process): what
    // shows, across replicas, that no two runs of one turn overlapped (test/rolling-restart.test.ts).
    const run = { attempt: resumed?.attempt ?? 1 };
    ctx.logger.debug(run, 'echo run started');
    try {
      if (!resumed) yield working('Echoing your message…');
      const chunks = toChunks(parts);
      for (let i = chunksSentBy(resumed?.checkpoint, chunks.length); i < chunks.length; i++) {
        // Aborts (and so ends the handler) when the task is canceled, or handed over by a drain.
        if (i > 0 && chunkDelayMs > 0) await sleep(chunkDelayMs, undefined, { signal: ctx.signal });
        const chunk = artifact(chunks[i]!, { name: 'echo', append: i > 0, lastChunk: i === chunks.length - 1 });
        yield withCheckpoint(chunk, { chunksSent: i + 1 });
      }
      yield resumed
        ? completed(undefined, {
            echo: { resumed: { attempt: resumed.attempt, reason: resumed.reason, checkpoint: resumed.checkpoint ?? null } },
          })
        : completed();
    } finally {
      ctx.logger.debug({ ...run, aborted: ctx.signal.aborted }, 'echo run ended');
    }
  };
}

/** How many chunks the checkpoint says were sent: none when it says nothing this handler wrote. */
function chunksSentBy(checkpoint: JsonValue | undefined, chunkCount: number): number {
  const sent = (checkpoint as { chunksSent?: unknown } | null | undefined)?.chunksSent;
  return typeof sent === 'number' && Number.isInteger(sent) && sent >= 0 ? Math.min(sent, chunkCount) : 0;
}

function hasContent(part: Part): boolean {
  return part.type !== 'text' || part.text.trim() !== '';
}

/**
 * The parts to send, one chunk each: a text is cut at word boundaries into up to three pieces
 * (their concatenation is the original text, whitespace included); files and data go whole.
 */
function toChunks(parts: readonly Part[]): Part[] {
  return parts.flatMap((part): Part[] => {
    // A 0.1.0 client may send a data part holding an array (spec 6.5.3), but what an agent sends
    // must pass the published schema, which takes only an object there: the array comes back
    // as `{ items: [...] }`, the form A2A 0.3 clients are shown it in too.
    if (part.type === 'data' && Array.isArray(part.data)) return [{ ...part, data: { items: part.data } }];
    if (part.type !== 'text') return [part];
    const words = part.text.split(/(?<=\s)(?=\S)/);
    const size = Math.ceil(words.length / 3);
    const pieces: Part[] = [];
    for (let i = 0; i < words.length; i += size) {
      pieces.push({ ...part, text: words.slice(i, i + size).join('') });
    }
    return pieces;
  });
}

/** The echo agent's router; mount it with `app.use(...)`. */
export function echoRouter(options: EchoOptions & Omit<A2ARouterOptions, 'card'> = {}): A2ARouter {
  const { chunkDelayMs, ...routerOptions } = options;
  return a2aRouter(createEchoHandler({ chunkDelayMs }), { card: echoCard, ...routerOptions });
}
