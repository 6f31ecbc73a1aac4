// The gRPC binding writes messages straight from their JSON form (src/v10/grpc/json-to-binary.ts)
// where protobuf-es would build the message first: the two must write the same bytes. Here they
// meet on messages made at random from every message type of A2A 1.0's proto (a fixed seed, so
// a failure repeats), in the canonical JSON the kit sends and in the looser JSON a client may
// (proto names, zero values, nulls); and on the edges: timestamps, oneofs, wrong types.
import { fromJson, toJson, type DescField, type DescMessage, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import { base64Encode } from '@bufbuild/protobuf/wire';
import { file_lf_a2a_v1_a2a, jsonToBinary, protobufJsonToBinary, SendMessageResponseSchema, TaskSchema } from '../src/v10/grpc/index.js';
import { Unhandled, writeJsonMessage } from '../src/v10/grpc/json-to-binary.js';

/** mulberry32: a small PRNG with a seed, so that every run makes the same messages. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const count = (max: number) => Math.floor(next() * (max + 1));
const STRINGS = ['', 'a', 'hello, echo', 'é€😀', 'x'.repeat(200), 'line\nbreak', '\u0000'];

function randomTimestamp(): string {
  const ms = Math.floor((next() - 0.3) * 4e12);
  const iso = new Date(ms).toISOString();
  // Now and then more digits of fraction, or an offset, as a client may write it.
  if (next() < 0.2) return iso.replace(/\.\d{3}Z$/, `.${String(Math.floor(next() * 1e9)).padStart(9, '0')}Z`);
  if (next() < 0.2) return iso.replace(/\.\d{3}Z$/, '+05:30');
  return iso;
}

function randomValue(depth: number): JsonValue {
  switch (count(depth > 2 ? 3 : 5)) {
    case 0:
      return null;
    case 1:
      return pick([0, -1.5, 42, 1e21, 2.5e-7]);
    case 2:
      return pick(STRINGS);
    case 3:
      return next() < 0.5;
    case 4:
      return Array.from({ length: count(3) }, () => randomValue(depth + 1));
    default:
      return randomStruct(depth + 1);
  }
}

function randomStruct(depth: number): JsonObject {
  return Object.fromEntries(Array.from({ length: count(3) }, (_, i) => [`k${i}-${pick(STRINGS)}`, randomValue(depth)]));
}

function randomScalar(field: DescField): JsonValue {
  if (field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum')) {
    return pick(field.enum!.values).name;
  }
  switch (field.scalar) {
    case 8: // BOOL
      return next() < 0.5;
    case 5: // INT32
      return pick([0, 1, -1, 2147483647, -2147483648, 1000]);
    case 12: // BYTES
      return base64Encode(new Uint8Array(Array.from({ length: count(5) }, () => count(255))));
    default:
      return pick(STRINGS);
  }
}

/** A message of `desc` as JSON, some fields set, under their JSON or proto names; `loose` adds nulls. */
function randomMessage(desc: DescMessage, depth: number, loose: boolean): JsonValue {
  if (desc.typeName === 'google.protobuf.Timestamp') return randomTimestamp();
  if (desc.typeName === 'google.protobuf.Struct') return randomStruct(depth);
  if (desc.typeName === 'google.protobuf.Value') return randomValue(depth);
  const json: Record<string, JsonValue> = {};
  const oneofs = new Set<unknown>();
  for (const field of desc.fields) {
    if (next() < 0.35) continue;
    if (field.oneof) {
      if (oneofs.has(field.oneof)) continue;
      oneofs.add(field.oneof);
    }
    const key = loose && next() < 0.3 ? field.name : field.jsonName;
    if (loose && next() < 0.05) {
      json[key] = null;
      continue;
    }
    const child = (d: DescMessage) => (depth < 3 ? randomMessage(d, depth + 1, loose) : {});
    switch (field.fieldKind) {
      case 'message':
        json[key] = child(field.message);
        break;
      case 'list':
        json[key] = Array.from({ length: count(3) }, () => (field.listKind === 'message' ? child(field.message) : randomScalar(field)));
        break;
      case 'map':
        json[key] = Object.fromEntries(
          Array.from({ length: count(3) }, (_, i) => [`key-${i}`, field.mapKind === 'message' ? child(field.message) : pick(STRINGS)]),
        );
        break;
      default:
        json[key] = randomScalar(field);
    }
  }
  return json;
}

/** Every message type of A2A 1.0's proto, nested ones too. */
function allMessages(): DescMessage[] {
  const found: DescMessage[] = [];
  const visit = (desc: DescMessage) => {
    found.push(desc);
    for (const nested of desc.nestedMessages) visit(nested);
  };
  for (const desc of file_lf_a2a_v1_a2a.messages) visit(desc);
  return found;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('a message written straight from its JSON', () => {
  test.each(allMessages().map((desc) => [desc.typeName, desc] as const))(
    '%s: the same bytes as protobuf-es, from the canonical JSON (the fast way always) and from looser JSON',
    (_name, desc) => {
      let unhandled = 0;
      for (let i = 0; i < 40; i++) {
        const loose = randomMessage(desc, 0, true);
        // What the kit sends is the canonical JSON: written the fast way, never handed over.
        const canonical = toJson(desc, fromJson(desc, loose, { ignoreUnknownFields: true }));
        expect(hex(writeJsonMessage(desc, canonical))).toBe(hex(protobufJsonToBinary(desc, canonical)));
        try {
          expect(hex(writeJsonMessage(desc, loose))).toBe(hex(protobufJsonToBinary(desc, loose)));
        } catch (error) {
          if (!(error instanceof Unhandled)) throw error;
          unhandled++;
        }
        expect(hex(jsonToBinary(desc, loose))).toBe(hex(protobufJsonToBinary(desc, loose)));
      }
      // Loose JSON too is mostly written the fast way (a few messages hold what it leaves to protobuf-es).
      expect(unhandled).toBeLessThan(40);
    },
  );

  test('timestamps: every form RFC 3339 allows, as protobuf-es reads them; one it refuses, refused alike', () => {
    for (const timestamp of [
      '2026-11-26T06:00:00.000Z',
      '2026-11-26T06:00:00Z',
      '1969-12-31T23:59:59.999Z',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999999999Z',
      '2026-11-26T06:00:00.123456789+01:00',
      '2026-11-26T06:00:00-08:00',
      '1970-01-01T00:00:00.000Z',
    ]) {
      const task = { id: 't', status: { state: 'TASK_STATE_WORKING', timestamp } };
      expect([timestamp, hex(writeJsonMessage(TaskSchema, task))]).toEqual([timestamp, hex(protobufJsonToBinary(TaskSchema, task))]);
    }
    for (const timestamp of [
      '2026-13-01T00:00:00Z',
      '2026-11-26 06:00:00Z',
      // Date.parse reads these; RFC 3339 (and protobuf-es) does not.
      '2026-11-26 06:00:00.000Z',
      '2026-11-26T06:00:00.000z',
      '10000-01-01T00:00:00Z',
      'yesterday',
    ]) {
      const task = { id: 't', status: { state: 'TASK_STATE_WORKING', timestamp } };
      expect(() => writeJsonMessage(TaskSchema, task)).toThrow(Unhandled);
      expect(() => jsonToBinary(TaskSchema, task)).toThrow(/timestamp|RFC 3339|Timestamp/i);
    }
  });

  test('what it does not handle goes to protobuf-es, which writes it or refuses it as before', () => {
    // Two members of one oneof: protobuf-es's error, not a message with both.
    const both = { task: { id: 't' }, message: { messageId: 'm' } };
    expect(() => writeJsonMessage(SendMessageResponseSchema, both)).toThrow(Unhandled);
    expect(() => jsonToBinary(SendMessageResponseSchema, both)).toThrow();
    // A number where a string goes, an enum name the proto lacks, a number as a string.
    for (const task of [{ id: 5 }, { id: 't', status: { state: 'TASK_STATE_SLEEPING' } }]) {
      expect(() => writeJsonMessage(TaskSchema, task as never)).toThrow(Unhandled);
      let expected: string | Error;
      try {
        expected = hex(protobufJsonToBinary(TaskSchema, task as never));
      } catch (error) {
        expected = error as Error;
      }
      if (typeof expected === 'string') expect(hex(jsonToBinary(TaskSchema, task as never))).toBe(expected);
      else expect(() => jsonToBinary(TaskSchema, task as never)).toThrow(expected.message);
    }
    // Fields the proto does not declare are left out, as protobuf-es leaves them.
    const extra = { id: 't', kind: 'task', final: true };
    expect(hex(writeJsonMessage(TaskSchema, extra))).toBe(hex(protobufJsonToBinary(TaskSchema, extra)));
  });

  test('a writer left mid-message by a refusal writes the next message whole', () => {
    expect(() => writeJsonMessage(TaskSchema, { id: 't', history: [{ messageId: 'm', parts: [{ text: 1 }] }] } as never)).toThrow(
      Unhandled,
    );
    const task = { id: 't', contextId: 'c' };
    expect(hex(writeJsonMessage(TaskSchema, task))).toBe(hex(protobufJsonToBinary(TaskSchema, task)));
  });
});
