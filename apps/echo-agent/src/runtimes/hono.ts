// The echo agent in a Hono app on Node (@hono/node-server), beside the app's own routes: the
// fetch handler takes Hono's raw request, and `c.env` for the client's address.
//   node dist/runtimes/hono.js
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { a2aFetchHandler } from 'a2a-express/fetch';
import { handler, hostname, listening, options, port, stopOnSigterm } from './from-env.js';

const agent = a2aFetchHandler(handler, options);
const app = new Hono();
app.get('/hello', (c) => c.text('the app’s own route'));
app.all('/*', (c) => agent(c.req.raw, c.env));
serve({ fetch: app.fetch, port, hostname }, (info) => listening('hono', info.port));
stopOnSigterm(agent);
