// The README's ten-line example, as written there, must work.
import express from 'express';
import request from 'supertest';
import { a2aRouter, artifact, completed, inputRequired, textOf, working } from '../src/index.js';
import { resultOf, sendRequest, silent } from './helpers.js';

test('the README example answers, asks for input, and echoes', async () => {
  const app = express();
  app.use(
    a2aRouter(
      async function* echo(ctx) {
        if (!textOf(ctx.message).trim()) return yield inputRequired('What should I echo?');
        yield working('Thinking…');
        yield artifact(textOf(ctx.message), { name: 'echo' });
        yield completed();
      },
      { card: { name: 'Echo', version: '1.0.0', skills: [{ id: 'echo', name: 'Echo' }] }, logger: silent },
    ),
  );

  const post = (body: unknown) => request(app).post('/').set('Content-Type', 'application/json').send(JSON.stringify(body));
  const asked = resultOf((await post(sendRequest('readme', ' '))).body);
  expect(asked.status).toMatchObject({ state: 'input-required', message: { parts: [{ text: 'What should I echo?' }] } });
  const echoed = resultOf((await post(sendRequest('readme', 'hello'))).body);
  expect(echoed.status.state).toBe('completed');
  expect(echoed.artifacts).toEqual([{ name: 'echo', index: 0, parts: [{ type: 'text', text: 'hello' }] }]);
  expect((await request(app).get('/.well-known/agent.json')).body.skills).toEqual([{ id: 'echo', name: 'Echo' }]);
});
