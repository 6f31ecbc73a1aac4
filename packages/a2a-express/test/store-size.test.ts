// What a task's content counts toward maxTaskBytes and the store budgets: for any shape at all
// (hostile ones included) a finite, non-negative size, never less than its JSON.
import type { Artifact, Message } from 'a2a-types';
import { applyEvents } from '../src/model/fold.js';
import type { TaskRecord } from '../src/model/record.js';
import { jsonSize, stringSize } from '../src/model/size.js';

const shapes: unknown[] = [
  '',
  'plain',
  'quotes " and \\ backslashes',
  'controls \u0000\u0001\u001f\n\t',
  'pair \ud83d\ude00 and lone \ud800 \udc00',
  0,
  -0,
  1e21,
  Number.MAX_VALUE,
  -1.5e-300,
  true,
  false,
  null,
  [],
  {},
  [1, 'two', null, [3], { four: 4 }],
  { type: 'text', text: 5 },
  { type: 'file', file: { bytes: 5, uri: ['x'], name: { n: 1 } } },
  { type: 'data' },
  { kind: 'file', file: null, type: 'text', text: 5, extra: { deep: [[[['x']]]] } },
  { parts: 'not an array', metadata: 'not an object' },
  { 'key "quoted"': 'value', '\u0000': '\u0001' },
];

test.each(shapes.map((shape) => [JSON.stringify(shape), shape]))('jsonSize(%s) is finite and at least its JSON length', (_, shape) => {
  const size = jsonSize(shape);
  expect(Number.isFinite(size)).toBe(true);
  expect(size).toBeGreaterThanOrEqual(JSON.stringify(shape).length);
  // Close: at most one separator too many per value.
  expect(size).toBeLessThanOrEqual(JSON.stringify(shape).length + JSON.stringify(shape).length / 2 + 2);
});

test('stringSize is the exact length of the string as JSON', () => {
  for (const text of shapes.filter((s): s is string => typeof s === 'string')) expect(stringSize(text)).toBe(JSON.stringify(text).length);
  expect(stringSize('\u2028€')).toBe(JSON.stringify('\u2028€').length);
});

test('values JSON cannot carry count as nothing, never NaN', () => {
  for (const value of [undefined, () => 1, Symbol('s'), 10n, { f: () => 1, u: undefined }, [undefined, Symbol('x')]]) {
    expect(Number.isFinite(jsonSize(value))).toBe(true);
    expect(jsonSize(value)).toBeGreaterThanOrEqual(0);
  }
});

describe('a record folded from hostile events keeps a finite, non-negative size', () => {
  const record: TaskRecord = {
    task: { id: 't', contextId: 's', status: { state: 'working' } },
    history: [],
    lastEventId: 0,
    turn: 1,
    updatedAt: 0,
  };
  const hostileParts = shapes.filter((s) => s !== null && typeof s === 'object' && !Array.isArray(s)) as never[];

  test('status messages and artifact chunks of every shape, replaced and appended', () => {
    let next = record;
    for (const part of hostileParts) {
      const message = { role: 'agent', parts: [part] } as unknown as Message;
      next = applyEvents(next, [{ id: 't', status: { state: 'working', message } }]);
      next = applyEvents(next, [{ id: 't', artifact: { index: 0, parts: [part] } as Artifact }]);
      next = applyEvents(next, [{ id: 't', artifact: { index: 0, append: true, parts: [part], name: 'n' } as Artifact }]);
      expect(Number.isFinite(next.bytes)).toBe(true);
      expect(next.bytes).toBeGreaterThanOrEqual(0);
    }
  });

  test('a record stored by an older release with no size, or a size smaller than its content, never goes below zero', () => {
    const old = applyEvents(record, [{ id: 't', artifact: { index: 0, parts: [{ type: 'text', text: 'x'.repeat(1_000) }] } }]);
    const shrunk = { ...old, bytes: 3 };
    const replaced = applyEvents(shrunk, [{ id: 't', artifact: { index: 0, parts: [{ type: 'text', text: 'y' }] } }]);
    expect(replaced.bytes).toBe(0);
  });
});
