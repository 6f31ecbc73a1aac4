// What the end-to-end tests share: an agent served by a2a-express on loopback from a handler of
// this package, and the official SDK's 1.x client (1.3) talking A2A 1.0 to it.
import express from 'express';
import { pino } from 'pino';
import { a2aRouter, type TaskHandler } from 'a2a-express';
import { ClientFactory, type Client } from 'a2a-sdk-1/client';
import { Role, TaskState, type SendMessageRequest, type StreamResponse } from 'a2a-sdk-1';
import { collectEvents, serverPool } from 'a2a-testing';

export { Role, TaskState };

const pool = serverPool();
export const closeAll = pool.closeAll;

/** A logger whose lines the test reads (parsed). */
export function memoryLogger() {
  const raw: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void raw.push(line) });
  return { logger, text: () => raw.join('\n') };
}

/** The handler served on loopback as an agent, and the SDK 1.3 client made from its card. */
export async function agentWith(handler: TaskHandler): Promise<{ client: Client; url: string; log: () => string }> {
  const { logger, text } = memoryLogger();
  const router = a2aRouter(handler, {
    card: {
      name: 'Model agent',
      description: 'Answers with a model',
      version: '1.0.0',
      skills: [{ id: 'chat', name: 'Chat', description: 'Answers questions', tags: ['chat'] }],
    },
    logger,
  });
  const { url } = await pool.serve(express().use(router));
  const client = await new ClientFactory().createFromUrl(url);
  return { client, url, log: text };
}

export const userRequest = (text: string, taskId?: string): SendMessageRequest =>
  ({
    message: {
      messageId: crypto.randomUUID(),
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text } }],
      ...(taskId ? { taskId } : {}),
    },
  }) as unknown as SendMessageRequest;

export type Payload = NonNullable<StreamResponse['payload']>;

/** Every event of a stream, as its payload. */
export async function streamed(client: Client, request: SendMessageRequest, max?: number): Promise<Payload[]> {
  const events = await collectEvents(client.sendMessageStream(request), max);
  return events.map((event) => event.payload!);
}

export const textOfParts = (parts: { content?: { $case: string; value?: unknown } }[] = []) =>
  parts.map((p) => (p.content?.$case === 'text' ? String(p.content.value) : '')).join('');

/** The text of each artifact chunk, in the order they came. */
export function chunksOf(events: Payload[]): { text: string; append: boolean; lastChunk: boolean }[] {
  return events
    .filter((e) => e.$case === 'artifactUpdate')
    .map((e) => {
      const update = e.value as {
        artifact: { parts: { content?: { $case: string; value?: unknown } }[] };
        append: boolean;
        lastChunk: boolean;
      };
      return { text: textOfParts(update.artifact.parts), append: update.append, lastChunk: update.lastChunk };
    });
}

/** The status updates: their state, message text and metadata. */
export function statusesOf(events: Payload[]) {
  return events
    .filter((e) => e.$case === 'statusUpdate')
    .map((e) => {
      const update = e.value as {
        taskId: string;
        status: {
          state: TaskState;
          message?: { parts: { content?: { $case: string; value?: unknown } }[]; metadata?: Record<string, unknown> };
        };
        metadata?: Record<string, unknown>;
      };
      return {
        taskId: update.taskId,
        state: update.status.state,
        text: textOfParts(update.status.message?.parts),
        parts: update.status.message?.parts ?? [],
        metadata: update.metadata,
      };
    });
}

/** Resolves when `signal` aborts. */
export const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
