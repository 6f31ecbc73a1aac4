// Input modes: a client's part whose media type the card does not list is refused with -32005,
// over 0.1.0 and 0.3 alike, with what was sent and what is taken, before anything is stored.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { rpc, serverPool } from 'a2a-testing';
import { completed, type A2ARouterOptions, type AgentCardInput } from '../src/index.js';
import { acceptsMediaType, mediaTypeOf } from '../src/core/input-modes.js';
import { appWith } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

async function agent(card: Partial<AgentCardInput>, options: Partial<A2ARouterOptions> = {}) {
  const { app } = appWith(async () => completed('taken'), { card: { name: 'Modes', version: '1.0.0', ...card }, ...options });
  const server = await serve(app);
  return { url01: `${server.url}/`, url03: `${server.url}/v0.3` };
}

const dataPart01 = { type: 'data', data: { a: 1 } };
const pngPart01 = { type: 'file', file: { mimeType: 'image/png', bytes: 'iVBORw0KGgo=' } };
const textPart01 = { type: 'text', text: 'hello' };

const send01 = (url01: string, parts: object[], id = randomUUID()) => rpc(url01, 'tasks/send', { id, message: { role: 'user', parts } });
const send03 = (url03: string, parts: object[]) =>
  rpc(url03, 'message/send', { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts } });

describe('input modes', () => {
  test('a card that names none takes text/plain only: a data part gets -32005 with what was sent and what is taken; nothing is kept', async () => {
    const { url01, url03 } = await agent({});
    const id = randomUUID();
    const refused = await send01(url01, [textPart01, dataPart01], id);
    expect(refused.error).toEqual({
      code: -32005,
      message: 'Incompatible content types: content type not supported',
      data: {
        reason: "this agent does not take application/json; it takes text/plain (its card's input modes)",
        parts: [{ path: '/message/parts/1', mediaType: 'application/json' }],
        acceptedInputModes: ['text/plain'],
      },
    });
    expect((await rpc(url01, 'tasks/get', { id })).error).toMatchObject({ code: -32001 });
    const refused03 = await send03(url03, [{ kind: 'file', file: { mimeType: 'image/png', bytes: 'iVBORw0KGgo=' } }]);
    expect(refused03.error).toMatchObject({ code: -32005, data: { parts: [{ path: '/message/parts/0', mediaType: 'image/png' }] } });
    expect((await send01(url01, [textPart01])).result).toMatchObject({ status: { state: 'completed' } });
  });

  test("the skills' input modes count, wildcards match a family, parameters and case do not matter", async () => {
    const { url01 } = await agent({
      defaultInputModes: ['Text/Plain; charset=utf-8'],
      skills: [{ id: 'see', name: 'See', inputModes: ['image/*'] }],
    });
    expect((await send01(url01, [textPart01, pngPart01])).result).toMatchObject({ status: { state: 'completed' } });
    expect((await send01(url01, [dataPart01])).error).toMatchObject({ code: -32005 });
  });

  test('enforceInputModes: false lets every part through to the handler', async () => {
    const { url01 } = await agent({}, { enforceInputModes: false });
    expect((await send01(url01, [dataPart01, pngPart01])).result).toMatchObject({ status: { state: 'completed' } });
  });

  test('a message refused for its content makes no request to the webhook it names', async () => {
    const requests: string[] = [];
    const hookApp = express();
    hookApp.all('/hook', (req, res) => {
      requests.push(req.method);
      res.status(200).send(String(req.query.validationToken ?? ''));
    });
    const hook = await serve(hookApp);
    const { url01 } = await agent({}, { pushNotifications: { allowlist: ['127.0.0.1'], verifyOwnership: true } });
    const refused = await rpc(url01, 'tasks/send', {
      id: randomUUID(),
      message: { role: 'user', parts: [dataPart01] },
      pushNotification: { url: `${hook.url}/hook` },
    });
    expect(refused.error).toMatchObject({ code: -32005 });
    expect(requests).toEqual([]);
  });

  test('a continued task is held to the same modes', async () => {
    const { url01 } = await agent({});
    const id = randomUUID();
    expect((await send01(url01, [textPart01], id)).result).toBeDefined();
    expect((await send01(url01, [dataPart01], id)).error).toMatchObject({ code: -32005 });
  });

  test('media types of parts, and how modes match them', () => {
    expect(mediaTypeOf({ type: 'text', text: '' })).toBe('text/plain');
    expect(mediaTypeOf({ type: 'data', data: {} })).toBe('application/json');
    expect(mediaTypeOf({ type: 'file', file: { uri: 'https://example.test/a' } })).toBe('application/octet-stream');
    expect(mediaTypeOf({ type: 'file', file: { mimeType: 'Image/PNG', bytes: '' } })).toBe('Image/PNG');
    const legacy = acceptsMediaType(['text']);
    expect(legacy('text/plain')).toBe(true);
    expect(legacy('application/json')).toBe(false);
    const family = acceptsMediaType(['image/*', 'application/json']);
    expect(family('image/png')).toBe(true);
    expect(family('IMAGE/SVG+XML')).toBe(true);
    expect(family('application/json; charset=utf-8')).toBe(true);
    expect(family('text/plain')).toBe(false);
    expect(acceptsMediaType(['*/*'])('anything/at-all')).toBe(true);
    expect(acceptsMediaType(['*'])('x/y')).toBe(true);
    expect(acceptsMediaType([])('text/plain')).toBe(false);
  });
});
