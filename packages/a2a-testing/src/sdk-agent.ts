// An A2A 0.3 agent built with the official SDK's own server (`@a2a-js/sdk`), for tests of what
// the kit does with agents it did not write. A subpath of its own (`a2a-testing/sdk-agent`), so
// that the other tests never load the SDK.
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';
import type { Message } from 'a2a-types/v0.3';
import { listen, type RunningServer } from './index.js';

/** What the agent's executor gets: the message's text, and its task and context ids. */
export interface SdkTurn {
  readonly text: string;
  readonly taskId: string;
  readonly contextId: string;
}

/**
 * Serves an SDK agent on loopback whose executor publishes, for each message, the events
 * `answer` returns (a Message, a Task, updates: anything the SDK's event bus takes). Its card,
 * at `/.well-known/agent-card.json`, names the URL it really listens on.
 */
export async function serveSdkAgent(answer: (turn: SdkTurn) => unknown[]): Promise<RunningServer> {
  const card = {
    name: 'SDK agent',
    description: 'built with @a2a-js/sdk',
    url: 'http://127.0.0.1/',
    version: '1.0.0',
    protocolVersion: '0.3.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const executor = {
    async execute(ctx: { taskId: string; contextId: string; userMessage: Message }, bus: { publish(e: unknown): void; finished(): void }) {
      const text = ctx.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      for (const event of answer({ text, taskId: ctx.taskId, contextId: ctx.contextId })) bus.publish(event);
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card as never, new InMemoryTaskStore(), executor as never);
  const server = await listen(new A2AExpressApp(handler).setupRoutes(express()));
  // The SDK serves the card as configured: point it at where the agent really listens.
  card.url = `${server.url}/`;
  return server;
}
