import { jsonCopy } from '../src/model/plain-json.js';

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value) as string);

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

/** Values whose copy must equal the JSON round-trip exactly, each chosen for a rule it tests. */
const cases: [string, unknown][] = [
  ['a plain artifact', { parts: [{ type: 'text', text: 'chunk 1' }], index: 0, append: true, lastChunk: false }],
  ['a message with nested data', { role: 'agent', parts: [{ type: 'data', data: { a: [1, 2, { b: null }], c: 'd' } }], metadata: {} }],
  ['strings, including a lone surrogate', ['plain', 'émoji 🎉', '\ud800', '']],
  ['-0, which JSON turns into 0', { zero: -0, list: [-0] }],
  ['NaN and Infinity, which JSON turns into null', { a: Number.NaN, b: [Infinity, -Infinity] }],
  ['undefined, functions and symbols in an object, which JSON drops', { a: undefined, b: () => 1, c: Symbol('s'), d: 1 }],
  // biome-ignore lint/suspicious/noSparseArray: the hole is what this case is about.
  ['undefined, functions, symbols and holes in an array, which JSON makes null', [undefined, () => 1, Symbol('s'), , 4]],
  ['a Date, through its toJSON', { at: new Date(0) }],
  ['an object with its own toJSON', { inner: { toJSON: () => ({ replaced: true }) } }],
  ['a class instance, as its own fields', { point: new Point(1, 2) }],
  ['a Map and a Set, as empty objects', { m: new Map([[1, 2]]), s: new Set([1]) }],
  ['boxed primitives, as their values', [new String('s'), new Number(2), new Boolean(false)]],
  ['a symbol-keyed field, which JSON ignores', { [Symbol('hidden')]: 1, shown: 2 }],
  ['a getter, read once as a value', Object.defineProperty({}, 'computed', { enumerable: true, get: () => 'value' })],
  ['a non-enumerable field, which JSON ignores', Object.defineProperty({ kept: 1 }, 'hidden', { value: 2 })],
  ['an object without a prototype', Object.assign(Object.create(null), { a: 1 })],
  ['extra fields on an array, which JSON ignores', Object.assign([1, 2], { extra: true })],
  ['a __proto__ key, kept as a plain field', JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')],
  ['nesting deeper than the direct copy goes', nest(200)],
  ['a string on its own', 'text'],
  ['null on its own', null],
];

function nest(depth: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) value = i % 2 ? { next: value } : [value];
  return value;
}

describe('jsonCopy', () => {
  test.each(cases)('equals the JSON round-trip: %s', (_, value) => {
    const copy = jsonCopy(value);
    expect(copy).toStrictEqual(roundTrip(value));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
  });

  test('a __proto__ key stays an own field and pollutes no prototype', () => {
    const copy = jsonCopy(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  test('an enumerable key added to Object.prototype is ignored, as JSON ignores it', () => {
    const value = { parts: [{ type: 'text', text: 'x' }] };
    Object.defineProperty(Object.prototype, 'injected', { value: 'polluted', enumerable: true, configurable: true });
    try {
      const copy = jsonCopy(value);
      expect(Object.keys(copy)).toEqual(['parts']);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
    } finally {
      delete (Object.prototype as Record<string, unknown>).injected;
    }
  });

  test('the copy is detached: changing the original later changes nothing in it', () => {
    const original = { parts: [{ type: 'text', text: 'before' }], metadata: { tags: ['a'] } };
    const copy = jsonCopy(original);
    original.parts[0]!.text = 'after';
    original.parts.push({ type: 'text', text: 'added' });
    original.metadata.tags.push('b');
    expect(copy).toEqual({ parts: [{ type: 'text', text: 'before' }], metadata: { tags: ['a'] } });
  });

  test('refuses what the round-trip refuses, with the same error', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const value of [cyclic, { n: 10n }, undefined, () => 1]) {
      expect(() => jsonCopy(value)).toThrow(
        (() => {
          try {
            roundTrip(value);
          } catch (error) {
            return (error as Error).constructor as new () => Error;
          }
          throw new Error('the round-trip accepted it');
        })(),
      );
    }
  });
});
