import { randomUUID } from 'node:crypto';
import express from 'express';
import { pino, type Logger } from 'pino';
import type { Message, Task } from 'a2a-types';
import { publishedSchemaValidator03 } from 'a2a-types/v0.3';
import { publishedSchemaValidator10 } from 'a2a-types/v1.0';
import {
  a2aRouter,
  artifact,
  completed,
  inputRequired,
  reply,
  textOf,
  working,
  type A2ARouter,
  type A2ARouterOptions,
  type TaskHandler,
} from '../src/index.js';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';

export const silent: Logger = pino({ level: 'silent' });

/** The tests' agent takes content of any type (input modes have tests of their own: input-modes.test.ts). */
export const testCard = { name: 'Test Agent', version: '1.0.0', defaultInputModes: ['*/*'] };

/** An Express app with the router mounted at the root, logging nowhere unless told. */
export function appWith(handler: TaskHandler, options: Partial<A2ARouterOptions> = {}): { app: express.Express; router: A2ARouter } {
  const app = express();
  const router = a2aRouter(handler, { card: testCard, logger: silent, ...options });
  app.use(router);
  return { app, router };
}

/** A user's 0.3 message: `kind`, a fresh `messageId`, one text part, and any `extra` fields. */
export const message03 = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});

export function userText(text: string): Message {
  return { role: 'user', parts: [{ type: 'text', text }] };
}

export function request(method: string, params: unknown, id: string | number | null = 1) {
  return { jsonrpc: '2.0', id, method, params };
}

export function sendRequest(taskId: string, text: string, extra: Record<string, unknown> = {}, id: string | number = 1) {
  return request('tasks/send', { id: taskId, message: userText(text), ...extra }, id);
}

/** The response's result, failing the test with the error if there is one. */
export function resultOf<R = Task>(body: { result?: unknown; error?: unknown }): R {
  expectOneOf(body);
  if ('error' in body && body.error !== undefined) throw new Error(`expected a result, got error ${JSON.stringify(body.error)}`);
  return body.result as R;
}

/** JSON-RPC 2.0: a response has exactly one of `result` and `error`. */
export function expectOneOf(body: object): void {
  expect(body).toHaveProperty('jsonrpc', '2.0');
  expect(body).toHaveProperty('id');
  expect('result' in body).not.toBe('error' in body);
}

/** A promise and its resolver, to hold a handler where a test wants it. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** Polls `check` every 10 ms until it returns a value, for at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A pino logger that keeps its lines in memory, parsed. */
export function memoryLogger(level = 'info'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void raw.push(line) });
  return { logger, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** Fails with every issue unless `value` passes `definition` of the published 0.3 schema. */
export function expectValid03(definition: string, value: unknown): void {
  const validate = publishedSchemaValidator03(definition);
  if (!validate(value))
    throw new Error(`not a valid 0.3 ${definition}: ${JSON.stringify(validate.issues)}\n${JSON.stringify(value).slice(0, 2_000)}`);
}

/** Throws unless `value` passes the definition `title` of the published 1.0 bundle. */
export function expectValid10(title: string, value: unknown): void {
  const validate = publishedSchemaValidator10(title);
  if (!validate(value))
    throw new Error(`not a valid 1.0 ${title}: ${JSON.stringify(validate.issues)}\n${JSON.stringify(value).slice(0, 2_000)}`);
}

/** A user's 1.0 message: a fresh `messageId`, one text part, and any `extra` fields. */
export const message10 = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

/**
 * The echo the protocol tests share: the text as an artifact in two chunks (after a working
 * status); `?` asks for input; `reply` answers with the message "hello" alone; `wait` waits for
 * `held()` to settle before its chunks.
 */
export function twoChunkEcho(held: () => Promise<void>): TaskHandler {
  return async function* (ctx) {
    const text = textOf(ctx.message);
    if (text === '?') return yield inputRequired('What should I echo?');
    if (text === 'reply') return yield reply('hello');
    yield working('echoing');
    if (text === 'wait') await held();
    yield artifact(text.slice(0, 2), { name: 'echo', lastChunk: false });
    yield artifact(text.slice(2), { append: true, lastChunk: true });
    yield completed('done');
  };
}

/** An in-memory store that counts the subscriptions open on it: a stream that has ended must hold none. */
export class SubscriptionCountingStore extends InMemoryTaskStore {
  open = 0;
  override async subscribe(...args: Parameters<TaskStore['subscribe']>) {
    const unsubscribe = await super.subscribe(...args);
    this.open++;
    let done = false;
    return () => {
      if (!done) this.open--;
      done = true;
      unsubscribe();
    };
  }
}

/**
 * A handler that yields `chunks` appended artifact chunks, each only after `next()` (the first at
 * once), then completes: a stream a test moves on one event at a time.
 */
export function steppedChunks(chunks: number): { handler: TaskHandler; next: () => void } {
  const steps = { next: () => {} };
  const handler: TaskHandler = async function* () {
    for (let i = 0; i < chunks; i++) {
      yield artifact(`chunk ${i}`, { append: i > 0 });
      await new Promise<void>((resolve) => (steps.next = resolve));
    }
    yield completed();
  };
  return { handler, next: () => steps.next() };
}
