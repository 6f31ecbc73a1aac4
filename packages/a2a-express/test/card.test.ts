import express from 'express';
import request from 'supertest';
import { validateAgentCard } from 'a2a-types';
import { a2aRouter, completed } from '../src/index.js';
import { silent, testCard } from './helpers.js';

const handler = async () => completed();

describe('agent card', () => {
  test('is served at /.well-known/agent.json, complete and valid against the schema', async () => {
    const card = { name: testCard.name, version: testCard.version, skills: [{ id: 's', name: 'S' }] };
    const app = express().use(a2aRouter(handler, { card, logger: silent }));
    const res = await request(app).get('/.well-known/agent.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(validateAgentCard(res.body)).toBe(true);
    expect(res.body).toMatchObject({
      name: 'Test Agent',
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S' }],
    });
    expect(res.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  test("a missing url is filled from the request's origin and the mount path", async () => {
    const app = express().use('/agents/echo', a2aRouter(handler, { card: testCard, logger: silent }));
    const res = await request(app).get('/agents/echo/.well-known/agent.json').set('Host', 'agent.example.com:8080');
    expect(res.body.url).toBe('http://agent.example.com:8080/agents/echo');
  });

  test('behind a proxy ("trust proxy"), the forwarded protocol is used', async () => {
    const app = express()
      .set('trust proxy', true)
      .use(a2aRouter(handler, { card: testCard, logger: silent }));
    const res = await request(app).get('/.well-known/agent.json').set('Host', 'agent.example.com').set('X-Forwarded-Proto', 'https');
    expect(res.body.url).toBe('https://agent.example.com/');
  });

  test('a url given by the author, and any extra fields, are kept as they are', async () => {
    const card = { ...testCard, url: 'https://agent.example.com/a2a', provider: { organization: 'Acme' }, 'x-extension': { a: 1 } };
    const app = express().use(a2aRouter(handler, { card, logger: silent }));
    const res = await request(app).get('/.well-known/agent.json');
    expect(res.body).toMatchObject({ url: 'https://agent.example.com/a2a', provider: { organization: 'Acme' }, 'x-extension': { a: 1 } });
  });

  test('capabilities follow the options: streaming off → streaming: false', async () => {
    const app = express().use(a2aRouter(handler, { card: testCard, logger: silent, streaming: false }));
    expect((await request(app).get('/.well-known/agent.json')).body.capabilities.streaming).toBe(false);
  });

  test.each([
    ['no name', { version: '1' }, /name/],
    ['no version', { name: 'x' }, /version/],
    ['a skill without id', { ...testCard, skills: [{ name: 'S' }] }, /skills\/0/],
    ['a relative url', { ...testCard, url: '/a2a' }, /url/],
    ['authentication without schemes', { ...testCard, authentication: {} }, /authentication/],
  ])('a card with %s is refused when the router is made', (_, card, message) => {
    expect(() => a2aRouter(handler, { card: card as never, logger: silent })).toThrow(message);
  });

  test('a card claiming a capability the router does not serve is refused when the router is made', () => {
    expect(() => a2aRouter(handler, { card: { ...testCard, capabilities: { pushNotifications: true } }, logger: silent })).toThrow(
      /capabilities.pushNotifications is true but the router does not serve it/,
    );
    expect(() =>
      a2aRouter(handler, { card: { ...testCard, capabilities: { streaming: true } }, streaming: false, logger: silent }),
    ).toThrow(/capabilities.streaming/);
  });
});
