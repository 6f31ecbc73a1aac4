// What the edge uses that runtimes provide differently: Node's and Bun's own where they have them
// (faster), the Web's everywhere else (Deno, Workers).

type Immediate = (callback: () => void) => unknown;
const setImmediateOf = (globalThis as { setImmediate?: Immediate }).setImmediate;

/** Runs `callback` once the event loop turns: after every callback and promise of this turn. */
export const nextTurn: Immediate = setImmediateOf ? (callback) => setImmediateOf(callback) : (callback) => setTimeout(callback, 0);

const BufferOf = (globalThis as { Buffer?: { byteLength(text: string): number } }).Buffer;
const encoder = new TextEncoder();

/** The UTF-8 length of a text. */
export const utf8Length: (text: string) => number = BufferOf ? (text) => BufferOf.byteLength(text) : (text) => encoder.encode(text).length;

const nextTickOf = (globalThis as { process?: { nextTick?: (callback: () => void) => void } }).process?.nextTick;

/** Runs `callback` at the end of this tick (Node's `nextTick`; a microtask elsewhere). */
export const endOfTick: (callback: () => void) => void = nextTickOf
  ? (callback) => nextTickOf(callback)
  : (callback) => queueMicrotask(callback);
