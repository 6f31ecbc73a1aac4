// The kit's JSON-RPC endpoint alone under Express: the same body reading, checks, logging and
// writing as a2aRouter's, but a dispatcher that answers the canned task bare Express answers
// (servers/bare.mjs), without the task engine and store. Set beside bare Express and the echo
// agent (bench/shipped-ab.mjs), it tells the HTTP side's cost from the core's.
import express from 'express';
import { pino } from 'pino';
import { cannedAnswer } from './canned-task.mjs';
import { createRpcEndpoint } from '../../packages/a2a-express/dist/transports/http.js';
import { nodeExchange } from '../../packages/a2a-express/dist/edge/node.js';
import { CallEntry } from '../../packages/a2a-express/dist/transports/call-entry.js';

const dispatch = async (body) => ({ kind: 'response', response: cannedAnswer(body) });
const logger = pino({ level: 'info' });
// The way in as an agent without credentials has it; a refusal (none in the bench) is logged as one.
const entry = new CallEntry({
  runner: { refuse: (error) => logger.info({ code: error.code }, 'a2a call refused') },
  auth: undefined,
  isDraining: () => false,
});
const endpoint = createRpcEndpoint({
  dispatch,
  logger,
  entry,
  wireError: (error) => error,
  bodyLimit: '1mb',
  maxJsonDepth: 64,
  heartbeatMs: 15_000,
  maxStreamQueueBytes: 1 << 20,
  maxResponseBytes: 1 << 24,
  streamEventIds: 'when-asked',
  protocol: '0.1.0',
  route: '/',
});
// Mounted as a2aRouter mounts it: a router of its own below the app's, the request made an exchange.
const app = express().use(
  express.Router().post('/', (req, res) => {
    const { request, response } = nodeExchange(req, res, req.path, { mountUrl: () => '', clientAddress: () => req.ip });
    endpoint(request, response);
  }),
);
const server = app.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('SIGTERM', () => process.exit(0));
