// What the remote-agent tool tests share: a real a2a-express agent on loopback (HTTP, and gRPC
// beside it), guarded by an API key, that asks for more when a booking names no party size; and
// the ways of reaching it that a tool can be told to take.
import express from 'express';
import { pino } from 'pino';
import { a2aRouter, apiKey, artifact, completed, inputRequired, type Part } from 'a2a-express';
import { grpcTransport } from 'a2a-client/grpc';
import { serverPool } from 'a2a-testing';
import type { RemoteAgentOptions } from '../src/remote-agent.js';

const pool = serverPool();

/** What the agent saw of each message: its task, its context and its text. */
export interface Seen {
  taskId: string;
  contextId: string;
  text: string;
}

export const API_KEY = 'the-booking-key';

export const bookingCard = {
  name: 'Booking Agent',
  description: 'Books tables at the restaurant.',
  version: '1.0.0',
  skills: [
    {
      id: 'book',
      name: 'Book a table',
      description: 'Books a table for a party; asks how many people when not told.',
      tags: ['booking'],
      examples: ['a table for 4 tonight'],
    },
  ],
};

/** Starts the agent: its URL, what it saw, and what stops its gRPC server. */
export async function startBookingAgent() {
  const seen: Seen[] = [];
  const router = a2aRouter(
    async function* (ctx) {
      const text = ctx.message.parts.map((p: Part) => (p.type === 'text' ? p.text : '')).join('');
      seen.push({ taskId: ctx.task.id, contextId: ctx.contextId, text });
      if (text.startsWith('wait')) {
        // Until the call is given up (its task canceled, or the connection closed).
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return;
      }
      const people = /\d+/.exec(text)?.[0];
      if (!people) {
        yield inputRequired('For how many people?');
        return;
      }
      const booked = seen.filter((s) => s.contextId === ctx.contextId && /\d/.test(s.text)).length;
      yield artifact([
        { type: 'text', text: `Booked a table for ${people}.` },
        { type: 'data', data: { people: Number(people), bookingsInThisConversation: booked } },
      ]);
      yield completed();
    },
    { card: bookingCard, logger: pino({ level: 'silent' }), auth: { strategies: [apiKey({ keys: { [API_KEY]: 'host' } })] } },
  );
  const { url } = await pool.serve(express().use(router));
  const { serveGrpc } = await import('a2a-express/grpc');
  const grpcServer = await serveGrpc(router, { port: 0, agentUrl: url });
  return {
    url,
    seen,
    close: async () => {
      await grpcServer.close({ graceMs: 100 });
      await router.close();
      await pool.closeAll();
    },
  };
}

/** The versions and bindings a tool is told to use, with the options that say so (the key, always). */
export const transports: [string, RemoteAgentOptions][] = [
  ['1.0 over JSON-RPC', { protocolVersion: '1.0', preferredBinding: 'JSONRPC' }],
  ['1.0 over HTTP+JSON', { protocolVersion: '1.0', preferredBinding: 'HTTP+JSON' }],
  ['1.0 over gRPC', { protocolVersion: '1.0', preferredBinding: 'GRPC', grpc: grpcTransport() }],
  ['0.3 (JSON-RPC)', { protocolVersion: '0.3' }],
  ['0.1.0 (JSON-RPC)', { protocolVersion: '0.1.0' }],
];

/** The credential for every scheme the card names (the scheme is named differently by each version's card). */
export const credentials = () => API_KEY;
