// Detached copies of the values a handler hands over (artifacts, messages, metadata): what a
// client will receive, and nothing the handler can still change.
//
// The reference behaviour is the JSON round-trip, `JSON.parse(JSON.stringify(value))`. It was
// the largest single cost of a stream (BENCHMARKS.md), because it builds and parses a string
// for every chunk. Plain data (objects, arrays, strings, booleans, finite numbers, null) is
// copied directly here instead; anything the round-trip would change or refuse (toJSON, class instances, undefined or functions in arrays, non-finite numbers,
// BigInt, cycles, a `__proto__` key, very deep nesting) makes the copy fall back to the
// round-trip itself, so the result is always exactly what the round-trip gives.

/** A value JSON carries as it is: what a checkpoint may hold. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Returned up the recursion when the direct copy cannot match the round-trip. */
const FALL_BACK = Symbol('fall back to the JSON round-trip');

/** Past this depth the direct copy hands over to the round-trip (and its stack limit). */
const MAX_DIRECT_DEPTH = 64;

/**
 * A copy equal to `JSON.parse(JSON.stringify(value))`. Throws what that throws: a TypeError for
 * cycles and BigInt, a RangeError for nesting too deep for the stack, a SyntaxError for a value
 * JSON cannot hold at all (undefined, a function, a symbol).
 */
export function jsonCopy<T>(value: T): T {
  const copy = copyValue(value, 0);
  if (copy !== FALL_BACK) return copy as T;
  return JSON.parse(JSON.stringify(value) as string) as T;
}

function copyValue(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 becomes 0 in JSON; NaN and ±Infinity become null (left to the round-trip).
      return Number.isFinite(value) ? value + 0 : FALL_BACK;
    case 'object':
      if (value === null) return null;
      if (depth >= MAX_DIRECT_DEPTH) return FALL_BACK;
      return Array.isArray(value) ? copyArray(value, depth + 1) : copyObject(value, depth + 1);
    default:
      // undefined, functions, symbols and BigInt: the round-trip omits, nulls or refuses them
      // depending on where they sit.
      return FALL_BACK;
  }
}

function copyArray(array: unknown[], depth: number): unknown {
  if (Object.getPrototypeOf(array) !== Array.prototype || hasToJson(array)) return FALL_BACK;
  const copy = new Array<unknown>(array.length);
  for (let i = 0; i < array.length; i++) {
    const item = copyValue(array[i], depth);
    if (item === FALL_BACK) return FALL_BACK;
    copy[i] = item;
  }
  return copy;
}

function copyObject(object: object, depth: number): unknown {
  const prototype = Object.getPrototypeOf(object);
  if ((prototype !== Object.prototype && prototype !== null) || hasToJson(object)) return FALL_BACK;
  const copy: Record<string, unknown> = {};
  // for…in, unlike Object.keys, allocates nothing (a fifth of the copy's time). It also lists
  // inherited enumerable keys, which JSON ignores: one of those (a polluted Object.prototype)
  // hands the value over to the round-trip.
  for (const key in object) {
    if (!Object.hasOwn(object, key) || key === '__proto__') return FALL_BACK;
    const field = (object as Record<string, unknown>)[key];
    // The round-trip drops these from objects.
    if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
    const item = copyValue(field, depth);
    if (item === FALL_BACK) return FALL_BACK;
    copy[key] = item;
  }
  return copy;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
