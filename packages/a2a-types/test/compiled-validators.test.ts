// The validators a2a-types exports are compiled at build time (scripts/generate-validators.mjs):
// loading and calling them generates no code, so they run where code generation from strings is
// forbidden (Cloudflare Workers), and a process pays nothing to compile them. And the generated
// code finds what Ajv's own, compiled at run time from the same set-up, finds: the same verdicts,
// the same errors (paths, keywords, messages, the parent schema that carries `x-errorMessage`).
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Ajv } from 'ajv';
import type { CompiledValidator } from '../src/compile.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

test('every exported validator loads and checks in a process that forbids code generation, and adds no schema to any Ajv', async () => {
  // Every Ajv class (draft-07's, 2020-12's) adds schemas through its core's addSchema: counted there.
  const script = `
    import Core from 'ajv/dist/core.js';
    let added = 0;
    const addSchema = Core.default.prototype.addSchema;
    Core.default.prototype.addSchema = function (...args) { added++; return addSchema.apply(this, args); };
    let generation = 'allowed';
    try { new Function('return 1'); } catch (error) { generation = error.name; }
    const checked = {};
    for (const entry of ['a2a-types', 'a2a-types/model', 'a2a-types/v0.3', 'a2a-types/v1.0']) {
      for (const [name, value] of Object.entries(await import(entry))) {
        if (!name.startsWith('validate') || typeof value !== 'function') continue;
        checked[entry + ' ' + name] = value({}) ? 'valid' : value.issues.length > 0 ? 'issues' : 'none';
      }
    }
    const types = await import('a2a-types');
    const v10 = await import('a2a-types/v1.0');
    const both = { role: 'user', parts: [{ type: 'file', file: { bytes: 'aGk=', uri: 'https://x.example/f' } }] };
    console.log(JSON.stringify({
      generation,
      added,
      checked,
      taskId: types.validateTaskIdParams({ id: 't' }),
      both: [types.validateMessage(both), types.validateMessage.issues],
      card10: v10.validateAgentCard10({ name: 'A', version: '1', unknown: true }) || v10.validateAgentCard10.issues.map((i) => i.keyword),
    }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script],
    { cwd: packageDir },
  );
  const result = JSON.parse(stdout);
  expect(result.generation).toBe('EvalError');
  expect(result.added).toBe(0);
  // The 0.1.0 ones, the model's (the same functions), the 0.3 and 1.0 ones, and the 1.0 card's.
  expect(Object.keys(result.checked)).toHaveLength(10 + 3 + 7 + 11);
  expect(Object.values(result.checked).every((verdict) => verdict !== 'none')).toBe(true);
  expect(result.taskId).toBe(true);
  expect(result.both).toEqual([
    false,
    [{ path: '/parts/0/file', message: 'must not have both bytes and uri', keyword: 'not', params: {} }],
  ]);
  expect(result.card10).toEqual(['additionalProperties']);
});

/** Values that take each set's validators down many of their branches, right and wrong. */
const SAMPLES: Record<string, unknown[]> = {
  'validators-0.1.0.ts': [
    { jsonrpc: '2.0', id: 1, method: 'tasks/send', params: {} },
    { jsonrpc: '1.0', method: 7 },
    { id: 't', message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] } },
    { id: 't', message: { role: 'user', parts: [{ type: 'file', file: { bytes: 'aGk=', uri: 'https://x.example/f' } }] } },
    { id: 't', message: { role: 'user', parts: [{ text: 'no type' }, { type: 'data', data: [1] }] } },
    { id: 't', message: { role: 'robot', parts: [] }, pushNotification: { url: 'not a uri' }, historyLength: -1 },
    { id: 't', status: { state: 'working', timestamp: 'yesterday' }, artifacts: [{ parts: [], index: -1 }] },
    { id: 't', status: { state: 'completed', timestamp: '2025-01-01T00:00:00Z' }, final: true },
    { name: 'A', url: 'https://a.example/', version: '1', capabilities: {}, skills: [{ id: 's', name: 'S' }] },
    { name: 'A', url: 'not a url', version: 1, capabilities: { streaming: 'yes' }, skills: [{}] },
  ],
  'validators-0.3.ts': [
    { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
    { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'file', file: { bytes: 'aGk=', uri: 'https://x' } }] } },
    { message: { kind: 'message', role: 'agent', parts: [{ kind: 'video' }, { text: 'no kind' }] }, configuration: { historyLength: 'x' } },
    { id: 't', historyLength: 2, metadata: [] },
    { taskId: 't', pushNotificationConfig: { url: 'not a uri', authentication: { schemes: 'Bearer' } } },
    { id: 't', pushNotificationConfigId: 7 },
    { name: 'A', description: 'd', url: 'https://a.example/', version: '1', protocolVersion: '0.3.0', capabilities: {}, skills: [] },
    { name: 'A', url: 'https://a.example/', capabilities: {}, defaultInputModes: 'text', skills: [{ id: 's' }] },
  ],
  'validators-1.0.ts': [
    { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    { message: { messageId: 'm', role: 'ROLE_ROBOT', parts: [{ text: 'hi', url: 'https://x' }, {}] }, extra: true },
    { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ raw: 'aGk=' }] }, configuration: { historyLength: 'ten' } },
    { id: 't', historyLength: 2 },
    { id: 7, historyLength: -3 },
    { contextId: 'c', status: 'TASK_STATE_WORKING', pageSize: 10, statusTimestampAfter: '2025-01-01T00:00:00Z' },
    { statusTimestampAfter: 'yesterday', pageSize: 'many' },
    { taskId: 't', url: 'https://hook.example/', authentication: { scheme: 'Bearer' } },
    { taskId: 't', id: 'c', tenant: 3 },
  ],
  'published-0.3.ts': [
    { name: 'A', description: 'd', url: 'https://a.example/', version: '1', protocolVersion: '0.3.0', capabilities: {}, skills: [] },
    { name: 'A', url: 'not a url', capabilities: { streaming: 'yes' }, defaultInputModes: 'text', skills: [{ id: 's' }] },
    { kind: 'task', id: 't', contextId: 'c', status: { state: 'completed', timestamp: '2025-01-01T00:00:00Z' } },
    { kind: 'task', id: 7, status: { state: 'dancing' }, artifacts: [{ parts: [] }] },
    {
      kind: 'message',
      messageId: 'm',
      role: 'agent',
      parts: [
        { kind: 'text', text: 'hi' },
        { kind: 'data', data: { x: 1 } },
      ],
    },
    { kind: 'message', role: 'robot', parts: [{ kind: 'file', file: {} }] },
    { taskId: 't', pushNotificationConfig: { url: 'https://hook.example/', authentication: { schemes: ['Bearer'] } } },
    { jsonrpc: '2.0', id: 1, result: { kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'working' }, final: false } },
    { jsonrpc: '2.0', id: 1, result: { kind: 'artifact-update', taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [] } } },
    { jsonrpc: '1.0', result: {} },
  ],
  'published-1.0.ts': [
    { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:00Z' } } },
    { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }, { raw: 'aGk=', mediaType: 'text/plain' }] } },
    { task: { id: 7, status: { state: 'TASK_STATE_DANCING' } }, message: {} },
    { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
    { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ data: { x: 1 } }] }, append: 'no' } },
    { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history: [{ role: 'ROLE_USER' }], artifacts: [{}] },
    { tasks: [{ id: 't', contextId: 'c', status: { state: 'TASK_STATE_FAILED' } }], nextPageToken: '', pageSize: 1, totalSize: 1 },
    { tasks: 'none', nextPageToken: 3 },
    { taskId: 't', id: 'c', url: 'https://hook.example/', authentication: { scheme: 'Bearer', credentials: 'x' } },
    { configs: [{ taskId: 't', id: 'c', url: 7 }], nextPageToken: '' },
    {
      name: 'A',
      description: 'd',
      version: '1',
      capabilities: {},
      skills: [],
      supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC' }],
    },
    { name: 'A', version: '1', url: 'https://a', securitySchemes: { k: { apiKeySecurityScheme: { location: 'header', name: 'X' } } } },
    { name: 7, skills: [{ id: 's', tags: 'x' }], capabilities: { streaming: 'yes' }, signatures: [{ protected: 1 }] },
  ],
};
const ANYTHING = [null, 0, 'x', [], {}];

test.each(Object.keys(SAMPLES))('%s finds what Ajv finds compiling its set at run time', async (module) => {
  const setsPath: string = '../scripts/validator-sets.mjs'; // plain JavaScript, which TypeScript does not type
  const compiledPath = `../src/compiled/${module.replace(/\.ts$/, '.js')}`;
  const { VALIDATOR_SETS } = await import(setsPath);
  const validators = ((await import(compiledPath)) as { validators: () => Record<string, CompiledValidator> }).validators();
  const set = VALIDATOR_SETS.find((candidate: { module: string }) => candidate.module === module);
  const ajv: Ajv = set.ajv();
  let compared = 0;
  for (const definition of set.definitions as string[]) {
    const atRunTime = ajv.getSchema(set.ref(definition))!;
    for (const sample of [...SAMPLES[module]!, ...ANYTHING]) {
      const data = structuredClone(sample);
      const compiled = validators[definition]!;
      expect([definition, compiled(data), compiled.errors]).toEqual([definition, atRunTime(data), atRunTime.errors]);
      compared++;
    }
  }
  expect(compared).toBe(set.definitions.length * (SAMPLES[module]!.length + ANYTHING.length));
});
