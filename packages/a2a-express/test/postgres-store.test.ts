// What the PostgreSQL store adds to the contract (store-contract-postgres.test.ts): its migrations,
// input that stresses a database, and subscribers that share one connection. On a real
// PostgreSQL (test/services-global-setup.mjs), each test in a schema of its own.
import { randomBytes } from 'node:crypto';
import { dropSchema, postgresUrl, requirePostgres, rpc, serverPool, startOwnPostgres, uniqueSchema } from 'a2a-testing';
import express from 'express';
import pg from 'pg';
import { statusEvent } from '../src/core/task-events.js';
import { type A2ARouter, artifact, completed, inputRequired, type TaskHandler, textOf } from '../src/index.js';
import { migratePostgres, PostgresTaskStore, postgresStoreFromEnv } from '../src/postgres.js';
import type { StoredPushConfig, TaskChange, TaskRecord } from '../src/store/index.js';
import { appWith, eventually, memoryLogger, message10 } from './helpers.js';

const url = postgresUrl();
const schemas: string[] = [];
const stores: PostgresTaskStore[] = [];
const { serve, closeAll } = serverPool();
const routers: A2ARouter[] = [];
afterAll(async () => {
  await Promise.all(routers.map((router) => router.close()));
  await closeAll();
  await Promise.all(stores.map((store) => store.close()));
  for (const schema of schemas) await dropSchema(url, schema);
});

async function freshStore(options: Partial<ConstructorParameters<typeof PostgresTaskStore>[0]> = {}): Promise<PostgresTaskStore> {
  await requirePostgres(url);
  const schema = uniqueSchema('pg');
  schemas.push(schema);
  const store = new PostgresTaskStore({ connectionString: url, schema, ...options });
  stores.push(store);
  return store;
}

function created(taskId: string, contextId = 'ctx', metadata?: Record<string, unknown>): TaskRecord {
  return {
    task: { id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, ...(metadata && { metadata }) },
    history: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
    lastEventId: 0,
    turn: 1,
    updatedAt: Date.now(),
    bytes: 0,
  };
}

/** A change that appends (or, with `append` false, replaces) one text chunk of an artifact. */
const addChunk =
  (taskId: string, index: number, text: string, append = true) =>
  (current: TaskRecord | undefined): TaskChange => ({
    record: current ?? created(taskId),
    events: [{ id: taskId, artifact: { index, append, parts: [{ type: 'text', text }] } }],
  });

async function query<R extends pg.QueryResultRow = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
  database = url,
): Promise<R[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('PostgresTaskStore', () => {
  test('migrations: replicas starting at once migrate once; a second run changes nothing', async () => {
    await requirePostgres(url);
    const schema = uniqueSchema('migrate');
    schemas.push(schema);
    const runs = await Promise.all([migratePostgres(url, schema), migratePostgres(url, schema), migratePostgres(url, schema)]);
    expect(runs.flat()).toEqual([
      '001_tasks.sql',
      '002_leases.sql',
      '003_sealed_push_configs.sql',
      '004_laid_out.sql',
      '005_idempotency.sql',
      '006_turn_holder.sql',
      '007_turn_queue.sql',
    ]);
    expect(await migratePostgres(url, schema)).toEqual([]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const tables = await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema]);
      expect(tables.rows.map((row) => row.table_name)).toEqual([
        'a2a_events',
        'a2a_history',
        'a2a_idempotency',
        'a2a_migrations',
        'a2a_parts',
        'a2a_tasks',
        'a2a_turn_queue',
        'a2a_workers',
      ]);
    } finally {
      await client.end();
    }
  });

  test('a database away at first: calls fail with -32011 and ping says so; once it answers, the migrations run and calls succeed', async () => {
    const own = await startOwnPostgres();
    try {
      await own.stop();
      const store = new PostgresTaskStore({ connectionString: own.url, schema: 'a2a' });
      try {
        // -32011 for the client, as from the Redis store: come back later, the request was not kept.
        await expect(store.get('t')).rejects.toMatchObject({
          code: -32011,
          data: { reason: expect.stringMatching(/^the task store \(PostgreSQL\) is unavailable: .*(ECONNREFUSED|connect)/) },
        });
        await expect(store.ping()).rejects.toThrow(/ECONNREFUSED|connect/);
        await own.start();
        await store.ping();
        expect(await store.get('t')).toBeUndefined();
        await store.update('t', (current) => ({ record: current ?? created('t'), events: [statusEvent('t', 'working')] }));
        expect((await store.get('t'))!.lastEventId).toBe(1);
      } finally {
        await store.close();
      }
    } finally {
      await own.dispose();
    }
  }, 30_000);

  test('a restart of the database: subscribers and cancellation notices are heard again after it, nothing missed', async () => {
    const own = await startOwnPostgres();
    const listening = new PostgresTaskStore({ connectionString: own.url, schema: 'a2a' });
    const writing = new PostgresTaskStore({ connectionString: own.url, schema: 'a2a' });
    try {
      await writing.update('t', (current) => ({ record: current ?? created('t'), events: [statusEvent('t', 'working')] }));
      const seen: number[] = [];
      const ended: unknown[] = [];
      const unsubscribe = await listening.subscribe('t', (event) => seen.push(event.id));
      await listening.onTurnEnded((notice) => ended.push(notice));
      await own.stop();
      await own.start();
      // Written by another process once the database is back: heard here though the connection was lost.
      const write = async (state: 'working' | 'canceled') => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await writing.update('t', (current) => ({ record: current!, events: [statusEvent('t', state)] }));
          } catch (error) {
            // The writer's own pooled connection may be the lost one, once.
            if (attempt > 3) throw error;
          }
        }
      };
      const until = async (done: () => boolean) => {
        for (let i = 0; i < 300 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      // Written perhaps before this store listens again: read when it does.
      await write('working');
      await until(() => seen.length === 1);
      expect(seen).toEqual([2]);
      // Listening again now: a cancellation is announced to it, and its event told.
      await write('canceled');
      await until(() => seen.length === 2 && ended.length === 1);
      expect(seen).toEqual([2, 3]);
      expect(ended).toEqual([{ taskId: 't', turn: 1, state: 'canceled' }]);
      unsubscribe();
    } finally {
      await listening.close();
      await writing.close();
      await own.dispose();
    }
  }, 30_000);

  test('ids and metadata with quotes, NULs and long strings: kept to the character, or (a NUL in an id) refused with -32602', async () => {
    const store = await freshStore();
    // As long as an id may be (1,024 characters), and two bytes a character in UTF-8.
    const awkward = `it's "quoted"; DROP TABLE a2a_tasks; --\\ ${'ü'.repeat(980)}`;
    const metadata = { nul: 'a\u0000b', quote: '\'"', long: 'x'.repeat(1_000_000), nested: { 'key with "quotes"': [null, 1.5, '\u0000'] } };
    await store.update(awkward, (current) => ({
      record: current ?? created(awkward, awkward, metadata),
      events: [statusEvent(awkward, 'working')],
    }));
    const read = (await store.get(awkward))!;
    expect(read.task.id).toBe(awkward);
    expect(read.task.contextId).toBe(awkward);
    expect(read.task.metadata).toEqual(metadata);
    expect((await store.listTasks({ owner: undefined, contextId: awkward, pageSize: 5 })).records.map((r) => r.task.id)).toEqual([awkward]);

    const tooLong = 'x'.repeat(1_025);
    await expect(store.update(tooLong, (current) => ({ record: current ?? created(tooLong), events: [] }))).rejects.toMatchObject({
      code: -32602,
    });
    const nul = 'task\u0000id';
    await expect(store.update(nul, (current) => ({ record: current ?? created(nul), events: [] }))).rejects.toMatchObject({ code: -32602 });
    const nulContext = 'ctx\u0000';
    await expect(
      store.update('fine-id', (current) => ({ record: current ?? created('fine-id', nulContext), events: [] })),
    ).rejects.toMatchObject({
      code: -32602,
    });
    // Nothing of either was kept, and reading them is no error.
    expect(await store.get(nul)).toBeUndefined();
    expect(await store.get('fine-id')).toBeUndefined();
    expect(await store.eventsAfter(nul, 0)).toBeUndefined();
    expect((await store.listTasks({ owner: undefined, contextId: nulContext, pageSize: 5 })).total).toBe(0);
    const unsubscribe = await store.subscribe(nul, () => undefined);
    unsubscribe();
  });

  test('through the router, client input it cannot take is -32602 (400 over HTTP+JSON), never an internal error: a forged page token holding U+0000, ids too long together for an index', async () => {
    const store = await freshStore();
    const { logger, lines } = memoryLogger();
    const { app, router } = appWith(
      async function* () {
        yield completed('done');
      },
      { store, logger },
    );
    routers.push(router);
    const agent = await serve(app);
    const V1 = { 'A2A-Version': '1.0' };
    // Made as the agent makes its tokens (`statusMs:taskId`, base64url), naming a task id no page of this store can end at.
    const forged = Buffer.from(`${Date.now()}:task\u0000id`).toString('base64url');
    expect((await rpc(`${agent.url}/v1`, 'ListTasks', { pageToken: forged }, { headers: V1 })).error).toMatchObject({ code: -32602 });
    expect((await fetch(`${agent.url}/v1/tasks?pageToken=${forged}`, { headers: V1 })).status).toBe(400);
    // 1,024 characters (the kit's bound) of 3 bytes each, no two alike: an index entry of 3 KB, which nothing compresses.
    const wide = Array.from({ length: 1_024 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7_919) % 20_000))).join('');
    // Each version says it in its own terms: the reason is in the error's data.
    const tooLong = async (path: string, method: string, params: unknown) => {
      const { error } = await rpc(`${agent.url}${path}`, method, params, { headers: V1 });
      return { code: error?.code, saysWhy: JSON.stringify(error?.data).includes('too long together for the PostgreSQL store') };
    };
    expect(await tooLong('/v1', 'SendMessage', { message: message10('x', { contextId: wide }) })).toEqual({ code: -32602, saysWhy: true });
    // 0.1.0's client names the task: its id is a key of its own.
    const message01 = { role: 'user', parts: [{ type: 'text', text: 'x' }] };
    expect(await tooLong('/', 'tasks/send', { id: wide, message: message01 })).toEqual({ code: -32602, saysWhy: true });
    expect(lines().filter((line) => (line.level as number) >= 50)).toEqual([]);
    // Nothing was kept, and the agent goes on serving.
    expect((await rpc(`${agent.url}/v1`, 'ListTasks', {}, { headers: V1 })).result).toMatchObject({ tasks: [], totalSize: 0 });
    expect(
      (await rpc(`${agent.url}/v1`, 'SendMessage', { message: message10('x', { contextId: wide.slice(0, 300) }) }, { headers: V1 })).error,
    ).toBeUndefined();
  });

  test('a send to a task too full for it is refused from the head: a replica that never saw the task reads neither its history nor its parts for that', async () => {
    const store = await freshStore();
    // The other replica's own pool, each row the database sends it counted (as JSON text).
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    let bytesRead = 0;
    type Callback = (error: Error | null, result?: pg.QueryResult) => void;
    const counted = new WeakSet<pg.PoolClient>();
    pool.on('connect', (client) => {
      if (counted.has(client)) return;
      counted.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      const count = (result: pg.QueryResult | pg.QueryResult[] | undefined) => {
        for (const each of [result ?? []].flat()) bytesRead += JSON.stringify(each.rows).length;
      };
      // pool.query hands the client a callback; the store's own client calls (migrations) go unseen: they read no task.
      Object.assign(client, {
        query: (...args: unknown[]) => {
          const at = args.findIndex((arg) => typeof arg === 'function');
          if (at >= 0) {
            const callback = args[at] as Callback;
            args[at] = (error: Error | null, result?: pg.QueryResult) => {
              count(result);
              callback(error, result);
            };
          }
          return query(...args);
        },
      });
    });
    const other = new PostgresTaskStore({ pool, schema: store.schema });
    stores.push(other);
    const maxTaskBytes = 200_000;
    const agents = [];
    for (const replica of [store, other]) {
      // Echoes each message as an artifact, then waits for the next one.
      const echo: TaskHandler = async function* (ctx) {
        yield artifact(textOf(ctx.message), { append: true });
        yield inputRequired('more?');
      };
      const { app, router } = appWith(echo, { store: replica, maxTaskBytes });
      routers.push(router);
      agents.push(await serve(app));
    }
    const [first, second] = agents.map((agent) => `${agent.url}/v1`);
    const V1 = { 'A2A-Version': '1.0' };
    const send = (at: string, text: string, taskId?: string) =>
      rpc<{ task: { id: string } }>(at, 'SendMessage', { message: message10(text, taskId ? { taskId } : {}) }, { headers: V1 });
    try {
      // Messages of 40 kB, each echoed: 160 kB after two, and no room for a third.
      const started = await send(first!, 'x'.repeat(40_000));
      const taskId = started.result!.task.id;
      expect((await send(first!, 'x'.repeat(40_000), taskId)).result).toMatchObject({
        task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
      });
      const refusedFirst = await send(first!, 'x'.repeat(40_000), taskId);
      expect(refusedFirst.error).toMatchObject({
        code: -32602,
        data: expect.arrayContaining([
          { '@type': expect.stringMatching(/BadRequest$/), fieldViolations: [expect.objectContaining({ reason: 'maxTaskBytes' })] },
        ]),
      });

      bytesRead = 0;
      const refusedSecond = await send(second!, 'x'.repeat(40_000), taskId);
      // Refused as the replica that wrote the task refuses it, having read the task's head alone.
      expect(refusedSecond.error).toEqual(refusedFirst.error);
      expect(bytesRead).toBeLessThan(10_000);
      // A message that fits is taken, from the task read whole.
      bytesRead = 0;
      expect((await send(second!, 'fits', taskId)).result).toMatchObject({ task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
      expect(bytesRead).toBeGreaterThan(160_000);
    } finally {
      await other.close();
      await pool.end();
    }
  });

  test('ListTasks pages of every size walk all tasks once, in order', async () => {
    const store = await freshStore();
    for (let i = 0; i < 23; i++) {
      const id = `task-${String(i).padStart(2, '0')}`;
      await store.update(id, (current) => ({
        record: current ?? created(id),
        events: [{ id, status: { state: 'working', timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 7)).toISOString() }, final: false }],
      }));
    }
    const everyone = (await store.listTasks({ owner: undefined, pageSize: 100 })).records.map((r) => r.task.id);
    expect(everyone).toHaveLength(23);
    for (const pageSize of [1, 2, 5, 22, 23, 24]) {
      const walked: string[] = [];
      let after: Parameters<PostgresTaskStore['listTasks']>[0]['after'];
      for (let pages = 0; pages < 30; pages++) {
        const page = await store.listTasks({ owner: undefined, pageSize, after });
        expect(page.total).toBe(23);
        walked.push(...page.records.map((r) => r.task.id));
        if (!page.next) break;
        after = page.next;
      }
      expect([pageSize, walked]).toEqual([pageSize, everyone]);
    }
  });

  test('the reads of the hot paths use indexes, never a scan of the tables: the query plans', async () => {
    await requirePostgres(url);
    const schema = uniqueSchema('plans');
    schemas.push(schema);
    // The store's own statements, as it sends them, to ask PostgreSQL for their plans.
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const statements: [string, unknown[]][] = [];
    let capturing = true;
    type Query = (text: string, ...rest: unknown[]) => Promise<pg.QueryResult>;
    // Every statement goes through a client of the pool (pool.query too): each client's query is captured.
    const captured = new WeakSet<pg.PoolClient>();
    const capturingClient = (client: pg.PoolClient) => {
      if (captured.has(client)) return client;
      captured.add(client);
      const query = client.query.bind(client) as Query;
      Object.assign(client, {
        // pool.query passes a callback after the values: passed on as given.
        // The store's hot statements come as configs (named: prepared once per connection).
        query: (text: string | pg.QueryConfig, ...rest: unknown[]) => {
          const [sql, values] = typeof text === 'string' ? [text, Array.isArray(rest[0]) ? rest[0] : []] : [text.text, text.values ?? []];
          if (capturing && !/^(BEGIN|COMMIT|ROLLBACK)$/.test(sql)) statements.push([sql, values]);
          return query(text as string, ...rest);
        },
      });
      return client;
    };
    pool.on('connect', capturingClient);
    const store = new PostgresTaskStore({ pool, schema });
    stores.push(store);
    await store.update('seed', (current) => ({ record: current ?? created('seed'), events: [statusEvent('seed', 'working')] }));
    // Many tasks of many owners, contexts and states, each with a history and an artifact laid out
    // in rows, so that a scan would cost and the planner knows it.
    const tables = (name: string) => `${pg.escapeIdentifier(schema)}.${name}`;
    await pool.query(
      `INSERT INTO ${tables('a2a_tasks')} (task_id, owner, context_id, state, status_ms, listed, last_event_id, record, finished_at, laid_out)
       SELECT 'bulk-' || i, 'owner-' || (i % 500), 'ctx-' || (i % 2000), CASE WHEN i % 3 = 0 THEN 'completed' ELSE 'working' END,
              1700000000000 + i, true, 1,
              json_build_object('task', json_build_object('id', 'bulk-' || i, 'contextId', 'ctx-' || (i % 2000), 'status', json_build_object('state', 'working'),
                'artifacts', json_build_array(json_build_object('index', 0, 'parts', NULL))), 'lastEventId', 1, 'turn', 1, 'updatedAt', 0, 'bytes', 0),
              NULL, true
       FROM generate_series(1, 20000) AS i`,
    );
    await pool.query(
      `INSERT INTO ${tables('a2a_events')} (task_id, event_id, event) SELECT 'bulk-' || i, 1, '{}'::json FROM generate_series(1, 20000) AS i`,
    );
    await pool.query(
      `INSERT INTO ${tables('a2a_history')} (task_id, message) SELECT 'bulk-' || i, '{"role":"user","parts":[]}'::json FROM generate_series(1, 20000) AS i`,
    );
    await pool.query(
      `INSERT INTO ${tables('a2a_parts')} (task_id, artifact_index, parts) SELECT 'bulk-' || i, 0, '[{"type":"text","text":"x"}]'::json FROM generate_series(1, 20000) AS i`,
    );
    await pool.query(
      `ANALYZE ${tables('a2a_tasks')}; ANALYZE ${tables('a2a_events')}; ANALYZE ${tables('a2a_history')}; ANALYZE ${tables('a2a_parts')}`,
    );
    statements.length = 0;
    expect((await store.get('bulk-7'))!.task.artifacts).toEqual([{ index: 0, parts: [{ type: 'text', text: 'x' }] }]);
    // A change of a task this process did not write reads it whole first.
    await store.update('bulk-8', (current) => ({ record: current!, events: [statusEvent('bulk-8', 'working')] }));
    await store.eventsAfter('bulk-7', 0);
    await (await store.subscribe('bulk-7', () => undefined))();
    const after = { statusMs: 1700000010000, taskId: 'bulk-10000' };
    for (const filters of [{}, { contextId: 'ctx-7' }, { state: 'working' as const }, { contextId: 'ctx-7', state: 'working' as const }]) {
      await store.listTasks({ owner: 'owner-7', pageSize: 10, ...filters });
      await store.listTasks({ owner: 'owner-7', pageSize: 10, after, ...filters });
    }
    capturing = false;
    // The change of a task this process did not write (one that needs the task): read whole, then written in one statement.
    expect(statements.filter(([text]) => /^WITH head AS \(\s*UPDATE/.test(text))).toHaveLength(1);
    expect(statements.length).toBeGreaterThanOrEqual(3 + 8 * 2);
    const client = await pool.connect();
    try {
      await client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
      for (const [text, values] of statements) {
        const plan = JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows[0]['QUERY PLAN']);
        // Counting a page's total may read every task that matches (one owner's), by an index still.
        expect([text.replace(/\s+/g, ' '), plan.includes('"Seq Scan"')]).toEqual([text.replace(/\s+/g, ' '), false]);
      }
    } finally {
      client.release();
    }
  });

  test('shared by replicas: leases renewed, an expired one claimed by one replica at a time, a turn canceled anywhere announced', async () => {
    // Leases of a second, renewed every quarter of one: a slow machine has room before one runs out.
    const store = await freshStore({ leaseMs: 1_000 });
    const other = new PostgresTaskStore({ connectionString: url, schema: store.schema, leaseMs: 1_000 });
    stores.push(other);
    const heard: unknown[] = [];
    await other.onTurnEnded((ended) => heard.push(ended));
    for (const id of ['kept-alive', 'abandoned', 'finished']) {
      await store.update(id, (current) => ({ record: current ?? created(id), events: [statusEvent(id, 'working')] }));
    }
    await store.update('finished', (current) => ({ record: current!, events: [statusEvent('finished', 'completed')] }));
    // Renewed twice over a lease and a half: only the task nobody renews runs out.
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await store.renewLeases(['kept-alive', 'finished']);
    }
    const claimed = await Promise.all([other.claimExpiredLeases(), store.claimExpiredLeases()]);
    expect(claimed.flat()).toEqual(['abandoned']);
    // Claimed for one more lease: not again at once.
    expect(await other.claimExpiredLeases()).toEqual([]);

    await store.update('abandoned', (current) => ({ record: current!, events: [statusEvent('abandoned', 'canceled')] }));
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toEqual([{ taskId: 'abandoned', turn: 1, state: 'canceled' }]);
    // A finished task holds no lease, and a change to an ended task announces nothing more.
    await store.update('abandoned', (current) => ({ record: current!, events: [] }));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await other.claimExpiredLeases()).toEqual(['kept-alive']);
    expect(heard).toHaveLength(1);
  });

  test('many subscribers on one task share one connection: the pool does not grow with them', async () => {
    // Named, so that its connections can be counted apart from any other client's.
    const name = uniqueSchema('subscribers');
    const store = await freshStore({
      maxConnections: 3,
      connectionString: `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`,
    });
    await store.update('popular', (current) => ({ record: current ?? created('popular'), events: [statusEvent('popular', 'working')] }));
    const seen = new Array<number>(200).fill(0);
    const unsubscribes = await Promise.all(seen.map((_, i) => store.subscribe('popular', () => seen[i]!++)));
    await store.update('popular', (current) => ({ record: current!, events: [statusEvent('popular', 'completed')] }));
    for (let i = 0; i < 100 && seen.some((count) => count === 0); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(new Set(seen)).toEqual(new Set([1]));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // The store's connections: its pool (at most 3) and its one listener, whatever the subscribers.
      const count = await client.query('SELECT count(*)::integer AS n FROM pg_stat_activity WHERE application_name = $1', [name]);
      expect(count.rows[0].n).toBeGreaterThan(0);
      expect(count.rows[0].n).toBeLessThanOrEqual(3 + 1);
    } finally {
      await client.end();
    }
    for (const unsubscribe of unsubscribes) unsubscribe();
  });

  describe('push configs sealed at rest with a pushConfigKey', () => {
    const key = randomBytes(32);
    const secrets = { url: 'https://hooks.example/a2a?key=url-secret-1', token: 'token-secret-2', credentials: 'credential-secret-3' };
    const configs: StoredPushConfig[] = [
      {
        id: 'hook',
        protocol: '1.0',
        url: secrets.url,
        token: secrets.token,
        authentication: { schemes: ['Bearer'], credentials: secrets.credentials },
      },
    ];
    const withConfigs = (taskId: string) => async (store: PostgresTaskStore) =>
      store.update(taskId, (current) => ({
        record: { ...(current ?? created(taskId)), pushConfigs: configs },
        events: [statusEvent(taskId, 'working')],
      }));

    /** The task's row as the database holds it: its record's text and its sealed configs. */
    async function rawRow(schema: string, taskId: string): Promise<{ record: string; push_configs: string | null }> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const found = await client.query(
          `SELECT record::text AS record, push_configs FROM ${client.escapeIdentifier(schema)}.a2a_tasks WHERE task_id = $1`,
          [taskId],
        );
        return found.rows[0];
      } finally {
        await client.end();
      }
    }

    test('no secret of a push config is in the database; the store reads them back whole, in a task and in a page', async () => {
      const store = await freshStore({ pushConfigKey: key });
      await withConfigs('sealed')(store);
      const row = await rawRow(store.schema, 'sealed');
      for (const secret of Object.values(secrets)) expect(`${row.record} ${row.push_configs}`).not.toContain(secret);
      expect(row.push_configs).toMatch(/^v1\.[\w-]{8}\.[\w-]+$/);
      expect((await store.get('sealed'))!.pushConfigs).toEqual(configs);
      expect((await store.listTasks({ owner: undefined, pageSize: 10 })).records[0]!.pushConfigs).toEqual(configs);
      // Changed again, the configs stay sealed and whole.
      await store.update('sealed', (current) => ({ record: current!, events: [statusEvent('sealed', 'completed')] }));
      expect((await store.get('sealed'))!.pushConfigs).toEqual(configs);
      expect((await rawRow(store.schema, 'sealed')).record).not.toContain(secrets.token);
    });

    test('keys rotate: a store given the new key first still opens the old, and seals with the new on the next change', async () => {
      const old = await freshStore({ pushConfigKey: key });
      await withConfigs('rotated')(old);
      const sealedByOld = (await rawRow(old.schema, 'rotated')).push_configs!;
      const newKey = randomBytes(32).toString('base64');
      const rotated = new PostgresTaskStore({ connectionString: url, schema: old.schema, pushConfigKey: [newKey, key.toString('hex')] });
      stores.push(rotated);
      expect((await rotated.get('rotated'))!.pushConfigs).toEqual(configs);
      await rotated.update('rotated', (current) => ({ record: current!, events: [statusEvent('rotated', 'completed')] }));
      const sealedByNew = (await rawRow(old.schema, 'rotated')).push_configs!;
      expect(sealedByNew.split('.')[1]).not.toBe(sealedByOld.split('.')[1]);
      const newOnly = new PostgresTaskStore({ connectionString: url, schema: old.schema, pushConfigKey: newKey });
      stores.push(newOnly);
      expect((await newOnly.get('rotated'))!.pushConfigs).toEqual(configs);
    });

    test('configs kept before a key was given are read as they are, and sealed on the next change', async () => {
      const plain = await freshStore();
      await withConfigs('before-key')(plain);
      expect((await rawRow(plain.schema, 'before-key')).record).toContain(secrets.token);
      const keyed = new PostgresTaskStore({ connectionString: url, schema: plain.schema, pushConfigKey: key });
      stores.push(keyed);
      expect((await keyed.get('before-key'))!.pushConfigs).toEqual(configs);
      await keyed.update('before-key', (current) => ({ record: current!, events: [statusEvent('before-key', 'completed')] }));
      const row = await rawRow(plain.schema, 'before-key');
      expect(row.record).not.toContain(secrets.token);
      expect(row.push_configs).toMatch(/^v1\./);
    });

    test('sealed configs that cannot be opened (no key, another key, moved to another task) fail the read clearly, never read as none', async () => {
      const store = await freshStore({ pushConfigKey: key });
      await withConfigs('first')(store);
      await withConfigs('second')(store);
      const other = (options: Partial<ConstructorParameters<typeof PostgresTaskStore>[0]>) => {
        const opened = new PostgresTaskStore({ connectionString: url, schema: store.schema, ...options });
        stores.push(opened);
        return opened;
      };
      // Not an A2AError: the router logs it for the operator and tells the client of an internal error only.
      await expect(other({}).get('first')).rejects.toMatchObject({
        name: 'PushConfigsUnopenable',
        message: expect.stringContaining('given no pushConfigKey'),
      });
      await expect(other({ pushConfigKey: randomBytes(32) }).get('first')).rejects.toThrow('sealed with a key this store was not given');
      // One task's sealed configs copied onto another's row: the task id bound in refuses them.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const tasks = `${client.escapeIdentifier(store.schema)}.a2a_tasks`;
        await client.query(
          `UPDATE ${tasks} SET push_configs = (SELECT push_configs FROM ${tasks} WHERE task_id = 'first') WHERE task_id = 'second'`,
        );
      } finally {
        await client.end();
      }
      await expect(store.get('second')).rejects.toThrow('altered, or sealed for another task');
      expect((await store.get('first'))!.pushConfigs).toEqual(configs);
    });

    test('a key that is not 32 bytes is refused at construction, and from the environment with the variable named', () => {
      expect(() => new PostgresTaskStore({ connectionString: url, pushConfigKey: 'c2hvcnQ=' })).toThrow(/a key is 32 bytes .* got 5/);
      const env = { A2A_STORE: 'postgres', DATABASE_URL: url, A2A_PUSH_CONFIG_KEY: `${key.toString('base64')}, short` };
      expect(() => postgresStoreFromEnv('agent', env)).toThrow(/A2A_PUSH_CONFIG_KEY: .*key 2.*32 bytes/);
    });

    test('through the router: a webhook set over 1.0 is called with its token, read back, and its secrets are not in the database', async () => {
      const received: (string | undefined)[] = [];
      const hookApp = express();
      hookApp.post('/hook', express.raw({ type: () => true }), (req, res) => {
        received.push(req.header('x-a2a-notification-token'));
        res.status(204).end();
      });
      const hook = await serve(hookApp);
      const store = await freshStore({ pushConfigKey: key });
      const { app, router } = appWith(
        async function* () {
          yield completed('done');
        },
        { store, pushNotifications: { allowlist: ['127.0.0.1'] } },
      );
      routers.push(router);
      const agent = await serve(app);
      const sent = await fetch(`${agent.url}/v1/message:send`, {
        method: 'POST',
        headers: { 'a2a-version': '1.0', 'content-type': 'application/json' },
        body: JSON.stringify({
          message: message10('go'),
          configuration: { taskPushNotificationConfig: { id: 'hook', url: `${hook.url}/hook`, token: secrets.token } },
        }),
      });
      expect(sent.status).toBe(200);
      const taskId = ((await sent.json()) as { task: { id: string } }).task.id;
      expect(await eventually(async () => received[0])).toBe(secrets.token);
      const read = await fetch(`${agent.url}/v1/tasks/${taskId}/pushNotificationConfigs/hook`, { headers: { 'a2a-version': '1.0' } });
      // Read back whole from the sealed column (its token masked on the wire, as on every store).
      expect(await read.json()).toMatchObject({ id: 'hook', taskId, url: `${hook.url}/hook`, token: '********' });
      const row = await rawRow(store.schema, taskId);
      expect(`${row.record} ${row.push_configs}`).not.toContain(secrets.token);
      expect(`${row.record} ${row.push_configs}`).not.toContain('/hook');
    });
  });

  describe('what grows is appended, not rewritten', () => {
    test("a chunk appends a row of parts and rewrites only the task's small head", async () => {
      const store = await freshStore();
      const tables = (name: string) => `${pg.escapeIdentifier(store.schema)}.${name}`;
      await store.update('appended', (current) => ({ record: current ?? created('appended'), events: [] }));
      for (let i = 0; i < 50; i++) await store.update('appended', addChunk('appended', 0, `chunk ${i}`, i > 0));
      const [row] = await query<{ record: string; laid_out: boolean }>(
        `SELECT record::text AS record, laid_out FROM ${tables('a2a_tasks')} WHERE task_id = 'appended'`,
      );
      expect(row!.laid_out).toBe(true);
      expect(row!.record).not.toContain('chunk');
      expect(row!.record).not.toContain('hello');
      // One row per change here (the chunks of one change share a row); the first was a replacement.
      const parts = await query<{ parts: unknown }>(`SELECT parts FROM ${tables('a2a_parts')} WHERE task_id = 'appended' ORDER BY seq`);
      expect(parts).toHaveLength(50);
      expect(await query(`SELECT message FROM ${tables('a2a_history')} WHERE task_id = 'appended'`)).toEqual([
        { message: { role: 'user', parts: [{ type: 'text', text: 'hello' }] } },
      ]);
      const read = (await store.get('appended'))!;
      expect(read.task.artifacts![0]!.parts).toEqual(Array.from({ length: 50 }, (_, i) => ({ type: 'text', text: `chunk ${i}` })));
      // A chunk that replaces the artifact leaves it one row; another process reads the same record.
      await store.update('appended', addChunk('appended', 0, 'anew', false));
      expect(await query(`SELECT parts FROM ${tables('a2a_parts')} WHERE task_id = 'appended'`)).toEqual([
        { parts: [{ type: 'text', text: 'anew' }] },
      ]);
      const other = new PostgresTaskStore({ connectionString: url, schema: store.schema });
      stores.push(other);
      expect(await other.get('appended')).toEqual(await store.get('appended'));
    });

    test('messages and parts holding every control character (U+0001, which the read splits the pieces on, among them) read back the same elsewhere', async () => {
      const store = await freshStore();
      const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('');
      const text = `${controls}"\\,[]{}${controls}`;
      await store.update('controls', (current) => {
        const record = current ?? created('controls');
        return { record: { ...record, history: [...record.history, { role: 'user', parts: [{ type: 'text', text }] }] }, events: [] };
      });
      for (const [index, chunk] of [text, `\u0001${text}`, ','].entries())
        await store.update('controls', addChunk('controls', 0, chunk, index > 0));
      await store.update('controls', addChunk('controls', 1, text, false));
      const other = new PostgresTaskStore({ connectionString: url, schema: store.schema });
      stores.push(other);
      const read = (await other.get('controls'))!;
      expect(read.history.map((message) => message.parts)).toEqual([[{ type: 'text', text: 'hello' }], [{ type: 'text', text }]]);
      expect(read.task.artifacts).toEqual([
        { index: 0, parts: [text, `\u0001${text}`, ','].map((chunk) => ({ type: 'text', text: chunk })) },
        { index: 1, parts: [{ type: 'text', text }] },
      ]);
    });

    test('a record kept whole by the version before is read as it is, and laid out by its next change', async () => {
      const store = await freshStore();
      await store.update('seed', (current) => ({ record: current ?? created('seed'), events: [] }));
      const tables = (name: string) => `${pg.escapeIdentifier(store.schema)}.${name}`;
      const older: TaskRecord = {
        ...created('older'),
        task: { ...created('older').task, artifacts: [{ index: 0, name: 'draft', parts: [{ type: 'text', text: 'a' }] }] },
        lastEventId: 3,
      };
      await query(
        `INSERT INTO ${tables('a2a_tasks')} (task_id, owner, context_id, state, status_ms, listed, last_event_id, record) VALUES ('older', '', 'ctx', 'submitted', 1, true, 3, $1)`,
        [JSON.stringify(older)],
      );
      expect(await store.get('older')).toEqual(older);
      const { events } = await store.update('older', addChunk('older', 0, 'b'));
      expect(events.map((e) => e.id)).toEqual([4]);
      const [row] = await query<{ laid_out: boolean; record: string }>(
        `SELECT laid_out, record::text AS record FROM ${tables('a2a_tasks')} WHERE task_id = 'older'`,
      );
      expect(row).toMatchObject({ laid_out: true, record: expect.not.stringContaining('hello') });
      const after = (await store.get('older'))!;
      expect(after.history).toEqual(older.history);
      expect(after.task.artifacts).toEqual([{ index: 0, name: 'draft', parts: ['a', 'b'].map((text) => ({ type: 'text', text })) }]);
    });

    test("an event's WAL is the same at chunk 2,000 of a stream as at chunk 100 (a database of the test's own, nothing else writing)", async () => {
      const own = await startOwnPostgres();
      const store = new PostgresTaskStore({ connectionString: own.url, schema: 'flat' });
      try {
        await store.update('long', (current) => ({ record: current ?? created('long'), events: [] }));
        const lsn = async () => (await query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn', [], own.url))[0]!.lsn;
        const walBytes = async (from: string, to: string) =>
          Number((await query<{ bytes: string }>('SELECT pg_wal_lsn_diff($2, $1)::text AS bytes', [from, to], own.url))[0]!.bytes);
        /** WAL bytes per change over 50 changes, each one chunk, starting at chunk `from`. */
        const perChange = async (from: number) => {
          const start = await lsn();
          for (let i = from; i < from + 50; i++)
            await store.update('long', addChunk('long', 0, `chunk ${String(i).padStart(5, '0')}`, i > 1));
          return (await walBytes(start, await lsn())) / 50;
        };
        for (let i = 1; i < 100; i++) await store.update('long', addChunk('long', 0, `chunk ${String(i).padStart(5, '0')}`, i > 1));
        const early = await perChange(100);
        for (let i = 150; i < 2_000; i++) await store.update('long', addChunk('long', 0, `chunk ${String(i).padStart(5, '0')}`));
        const late = await perChange(2_000);
        // Rewriting the record would make the late changes write some 20 times the early ones.
        expect(late / early).toBeLessThan(1.25);
        expect((await store.get('long'))!.task.artifacts![0]!.parts).toHaveLength(2_049);
      } finally {
        await store.close();
        await own.dispose();
      }
    }, 60_000);
  });
});
