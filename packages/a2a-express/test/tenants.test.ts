// Tenants (spec 1.0: `tenant` on every request, `AgentInterface.tenant`, HTTP+JSON's
// `/{tenant}/…`): a tenant's tasks and push configs are its own on every store, whoever asks; the
// card lists an interface per tenant; a tenant not served is refused; the handler and the
// authorize hook see the tenant. Over JSON-RPC, HTTP+JSON and gRPC, on loopback.
import * as grpc from '@grpc/grpc-js';
import { postJson, rpc } from 'a2a-testing';
import { apiKey, completed, inputRequired, type A2ARouterOptions, type TaskHandler, type TaskStore } from '../src/index.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { storesUnderTest } from './stores-under-test.js';
import { grpcAgents, unary } from './grpc-agents.js';
import { appWith, message03, message10 } from './helpers.js';

const agents = grpcAgents();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await agents.close();
  for (const close of closers) await close();
});
const { serve } = agents;

type Json = Record<string, unknown>;
const V1 = { 'A2A-Version': '1.0' };
const KEYS = { 'X-API-Key': 'key-alice' };

const stores = storesUnderTest('tenants', closers);

/** Asks for input, so that tasks stay open and can take push configs. */
const waiting: TaskHandler = async function* () {
  yield inputRequired('and then?');
};

function agent(store: TaskStore, options: Partial<A2ARouterOptions> = {}) {
  return agents.agent(waiting, {
    store,
    tenants: ['acme', 'globex'],
    auth: { strategies: [apiKey({ keys: { 'key-alice': 'alice' } })] },
    pushNotifications: { allowlist: ['127.0.0.1'] },
    ...options,
  });
}

describe.each(stores)('on the $name, a tenant’s tasks are its own', ({ open }) => {
  test('made in acme over JSON-RPC, HTTP+JSON and gRPC: found in acme on each binding; not found from globex or the default tenant, by the same principal; each tenant lists its own', async () => {
    const { url, client } = await agent(await open());
    const sendIn = async (tenant: string | undefined) => {
      const answer = await rpc<{ task: { id: string } }>(
        `${url}/v1`,
        'SendMessage',
        { message: message10('hi'), ...(tenant && { tenant }) },
        { headers: { ...V1, ...KEYS } },
      );
      return answer.result!.task.id;
    };
    const inAcme = await sendIn('acme');
    const restAcme = await postJson(`${url}/v1/acme/message:send`, { message: message10('rest') }, { ...V1, ...KEYS });
    expect(restAcme.status).toBe(200);
    const restTask = ((await restAcme.json()) as { task: { id: string } }).task.id;
    const grpcAcme = await unary(
      client,
      'sendMessage',
      { tenant: 'acme', message: message10('grpc') },
      { 'a2a-version': '1.0', 'x-api-key': 'key-alice' },
    );
    const grpcTask = (grpcAcme.value!.task as { id: string }).id;
    const inDefault = await sendIn(undefined);
    const inGlobex = await sendIn('globex');

    // Found in its tenant, over every binding.
    for (const id of [inAcme, restTask, grpcTask]) {
      expect((await rpc(`${url}/v1`, 'GetTask', { id, tenant: 'acme' }, { headers: { ...V1, ...KEYS } })).error).toBeUndefined();
      expect((await fetch(`${url}/v1/acme/tasks/${id}`, { headers: { ...V1, ...KEYS } })).status).toBe(200);
      expect(
        (await unary(client, 'getTask', { tenant: 'acme', id }, { 'a2a-version': '1.0', 'x-api-key': 'key-alice' })).error,
      ).toBeUndefined();
    }
    // Not from another tenant, nor the default one, though the principal is the same.
    for (const [id, tenant] of [
      [inAcme, 'globex'],
      [inAcme, undefined],
      [inGlobex, 'acme'],
      [inDefault, 'acme'],
    ] as const) {
      const got = await rpc(`${url}/v1`, 'GetTask', { id, ...(tenant && { tenant }) }, { headers: { ...V1, ...KEYS } });
      expect(got.error?.code).toBe(-32001);
    }
    expect((await fetch(`${url}/v1/globex/tasks/${inAcme}`, { headers: { ...V1, ...KEYS } })).status).toBe(404);
    expect(
      (await unary(client, 'getTask', { tenant: 'globex', id: grpcTask }, { 'a2a-version': '1.0', 'x-api-key': 'key-alice' })).error?.code,
    ).toBe(grpc.status.NOT_FOUND);
    // Nor over 0.3, which has no tenants: it reaches the default tenant.
    expect((await rpc(`${url}/v0.3`, 'tasks/get', { id: inAcme }, { headers: KEYS })).error?.code).toBe(-32001);
    expect((await rpc(`${url}/v0.3`, 'tasks/get', { id: inDefault }, { headers: KEYS })).error).toBeUndefined();
    // A message continuing a task of another tenant: not found.
    const across = await rpc(
      `${url}/v1`,
      'SendMessage',
      { tenant: 'globex', message: message10('more', { taskId: inAcme }) },
      { headers: { ...V1, ...KEYS } },
    );
    expect(across.error?.code).toBe(-32001);

    // Each tenant lists its own.
    const listed = async (tenant?: string) =>
      (await rpc<{ tasks: { id: string }[] }>(`${url}/v1`, 'ListTasks', { ...(tenant && { tenant }) }, { headers: { ...V1, ...KEYS } }))
        .result!.tasks.map((t) => t.id)
        .sort();
    expect(await listed('acme')).toEqual([inAcme, restTask, grpcTask].sort());
    expect(await listed('globex')).toEqual([inGlobex]);
    expect(await listed()).toEqual([inDefault]);
    const restList = (await (await fetch(`${url}/v1/globex/tasks`, { headers: { ...V1, ...KEYS } })).json()) as { tasks: { id: string }[] };
    expect(restList.tasks.map((t) => t.id)).toEqual([inGlobex]);
  });

  test('push configs: set in acme, read in acme; not found from globex', async () => {
    const { url } = await agent(await open());
    const { result } = await rpc<{ task: { id: string } }>(
      `${url}/v1`,
      'SendMessage',
      { tenant: 'acme', message: message10('hi') },
      { headers: { ...V1, ...KEYS } },
    );
    const taskId = result!.task.id;
    const config = { taskId, id: 'hook', url: 'http://127.0.0.1:9/hook', tenant: 'acme' };
    expect((await rpc(`${url}/v1`, 'CreateTaskPushNotificationConfig', config, { headers: { ...V1, ...KEYS } })).error).toBeUndefined();
    const ref = { taskId, id: 'hook' };
    expect(
      (await rpc(`${url}/v1`, 'GetTaskPushNotificationConfig', { ...ref, tenant: 'acme' }, { headers: { ...V1, ...KEYS } })).result,
    ).toMatchObject({ url: config.url });
    expect(
      (await rpc(`${url}/v1`, 'GetTaskPushNotificationConfig', { ...ref, tenant: 'globex' }, { headers: { ...V1, ...KEYS } })).error?.code,
    ).toBe(-32001);
    expect(
      (await rpc(`${url}/v1`, 'CreateTaskPushNotificationConfig', { ...config, tenant: 'globex' }, { headers: { ...V1, ...KEYS } })).error
        ?.code,
    ).toBe(-32001);
    expect((await fetch(`${url}/v1/globex/tasks/${taskId}/pushNotificationConfigs`, { headers: { ...V1, ...KEYS } })).status).toBe(404);
  });

  test('a tenant of 3,000 characters with `tenants` a function: -32602 over JSON-RPC, 400 over HTTP+JSON, INVALID_ARGUMENT over gRPC, the function never asked', async () => {
    const asked: string[] = [];
    const { url, client } = await agent(await open(), {
      tenants: (tenant) => {
        asked.push(tenant);
        return true;
      },
    });
    // Not Latin, and no two characters alike: nothing PostgreSQL could compress into an index entry.
    const long = Array.from({ length: 3_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7_919) % 20_000))).join('');
    const limit = { path: '/tenant', message: 'must NOT have more than 256 characters' };
    const refused = await rpc(`${url}/v1`, 'SendMessage', { tenant: long, message: message10('x') }, { headers: { ...V1, ...KEYS } });
    expect(refused.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(refused.error)).toContain(limit.message);
    const rest = await postJson(`${url}/v1/${'t'.repeat(3_000)}/message:send`, { message: message10('x') }, { ...V1, ...KEYS });
    expect(rest.status).toBe(400);
    expect(await rest.text()).toContain(limit.message);
    const overGrpc = await unary(
      client,
      'sendMessage',
      { tenant: long, message: message10('x') },
      { 'a2a-version': '1.0', 'x-api-key': 'key-alice' },
    );
    expect(overGrpc.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(asked).toEqual([]);
    // At the bound, served and kept.
    const atBound = long.slice(0, 256);
    const sent = await rpc<{ task: { id: string } }>(
      `${url}/v1`,
      'SendMessage',
      { tenant: atBound, message: message10('x') },
      { headers: { ...V1, ...KEYS } },
    );
    expect(sent.error).toBeUndefined();
    expect(
      (await rpc(`${url}/v1`, 'GetTask', { tenant: atBound, id: sent.result!.task.id }, { headers: { ...V1, ...KEYS } })).error,
    ).toBeUndefined();
    expect(asked).toEqual([atBound, atBound]);
  });
});

describe('tenants served, listed, refused', () => {
  test('with listTenantsInCard, the 1.0 card lists each tenant’s interfaces after the default ones, gRPC’s included; without, none', async () => {
    const unlisted = await agent(new InMemoryTaskStore());
    const plain = (await (await fetch(`${unlisted.url}/.well-known/agent-card.json`, { headers: V1 })).json()) as {
      supportedInterfaces: Json[];
    };
    expect(plain.supportedInterfaces.some((i) => i.tenant !== undefined)).toBe(false);
    const { url } = await agent(new InMemoryTaskStore(), { listTenantsInCard: true });
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: V1 })).json()) as { supportedInterfaces: Json[] };
    const oneDotZero = card.supportedInterfaces.filter((i) => i.protocolVersion === '1.0');
    const defaults = oneDotZero.filter((i) => i.tenant === undefined);
    expect(defaults.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    for (const tenant of ['acme', 'globex'])
      expect(oneDotZero.filter((i) => i.tenant === tenant)).toEqual(defaults.map((i) => ({ ...i, tenant })));
    // Older versions have no tenant.
    expect(card.supportedInterfaces.filter((i) => i.protocolVersion !== '1.0').every((i) => i.tenant === undefined)).toBe(true);
  });

  test('a tenant not served: -32602 naming it over JSON-RPC, 400 over HTTP+JSON, INVALID_ARGUMENT over gRPC; a body whose tenant differs from its path’s, 400', async () => {
    const { url, client } = await agent(new InMemoryTaskStore());
    const refused = await rpc(`${url}/v1`, 'SendMessage', { tenant: 'initech', message: message10('x') }, { headers: { ...V1, ...KEYS } });
    expect(refused.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(refused.error)).toContain('tenant \\"initech\\" is not served by this agent');
    const rest = await postJson(`${url}/v1/initech/message:send`, { message: message10('x') }, { ...V1, ...KEYS });
    expect(rest.status).toBe(400);
    const overGrpc = await unary(client, 'getTask', { tenant: 'initech', id: 'x' }, { 'a2a-version': '1.0', 'x-api-key': 'key-alice' });
    expect(overGrpc.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const clash = await postJson(`${url}/v1/acme/message:send`, { tenant: 'globex', message: message10('x') }, { ...V1, ...KEYS });
    expect(clash.status).toBe(400);
    expect(await clash.text()).toContain('the path names tenant \\"acme\\", the body \\"globex\\"');
    // An unknown path below the interface is still a 404, not a tenant.
    expect((await postJson(`${url}/v1/acme/no-such-route`, {}, { ...V1, ...KEYS })).status).toBe(404);
  });

  test('without the option, every tenant is refused; a function serves those it says yes to, listing none', async () => {
    const none = await agent(new InMemoryTaskStore(), { tenants: undefined });
    expect((await rpc(`${none.url}/v1`, 'GetTask', { tenant: 'acme', id: 'x' }, { headers: { ...V1, ...KEYS } })).error?.code).toBe(-32602);
    const some = await agent(new InMemoryTaskStore(), { tenants: (tenant) => tenant.startsWith('team-') });
    const sent = await rpc(`${some.url}/v1`, 'SendMessage', { tenant: 'team-7', message: message10('x') }, { headers: { ...V1, ...KEYS } });
    expect(sent.error).toBeUndefined();
    expect(
      (await rpc(`${some.url}/v1`, 'SendMessage', { tenant: 'other', message: message10('x') }, { headers: { ...V1, ...KEYS } })).error
        ?.code,
    ).toBe(-32602);
    const card = (await (await fetch(`${some.url}/.well-known/agent-card.json`, { headers: V1 })).json()) as {
      supportedInterfaces: Json[];
    };
    expect(card.supportedInterfaces.some((i) => i.tenant !== undefined)).toBe(false);
  });

  test('the handler sees the tenant (ctx.call.tenant), and so does the authorize hook; its principal is the caller’s own', async () => {
    const seen: Json[] = [];
    const handler: TaskHandler = async function* (ctx) {
      seen.push({ tenant: ctx.call.tenant, principal: ctx.principal?.id });
      yield completed();
    };
    const asked: (string | undefined)[] = [];
    const { app } = appWith(handler, {
      tenants: ['acme'],
      auth: {
        strategies: [apiKey({ keys: { 'key-alice': 'alice' } })],
        authorize: (request) => {
          asked.push(request.tenant);
          return true;
        },
      },
    });
    const { url } = await serve(app);
    await rpc(`${url}/v1`, 'SendMessage', { tenant: 'acme', message: message10('x') }, { headers: { ...V1, ...KEYS } });
    await rpc(`${url}/v0.3`, 'message/send', { message: message03('x') }, { headers: KEYS });
    expect(seen).toEqual([
      { tenant: 'acme', principal: 'alice' },
      { tenant: undefined, principal: 'alice' },
    ]);
    expect(asked).toEqual(['acme', undefined]);
  });

  test('the option is checked when the router is made', () => {
    for (const [bad, message] of [
      [[''], /tenants\[0\] must be a name/],
      [['a/b'], /without slashes or spaces/],
      [['acme', 'acme'], /acme is listed twice/],
      ['acme', /tenants must be an array/],
    ] as const)
      expect(() => appWith(waiting, { tenants: bad as never })).toThrow(message);
  });
});
