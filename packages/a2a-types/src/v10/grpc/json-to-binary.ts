// A message's proto binary written straight from its JSON form, walking the message's descriptor:
// what `toBinary(schema, fromJson(schema, json))` writes, byte for byte, without building the
// message in between, and into one writer kept from call to call (protobuf-es's BinaryWriter,
// which keeps its buffer when it finishes). Every answer and stream message of the gRPC binding
// goes through here: protobuf-es's way spent about 7.5 µs on a task, most of it making the
// message and growing a new buffer, this about a third of that (BENCHMARKS.md).
//
// It writes what the kit sends: proto3 JSON of A2A 1.0's messages. For anything it does not
// handle the same way for certain (a scalar type A2A does not use, a value of the wrong type, an
// enum name the proto lacks, a timestamp it cannot read, two members of one oneof), it throws
// `Unhandled` and `jsonToBinary` asks protobuf-es instead, so an answer is never written
// differently; `json-to-binary.test.ts` holds the two to the same bytes on messages made from
// every descriptor.
import { ScalarType, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { base64Decode, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

/** Thrown where the fast path does not know for certain: protobuf-es writes the message instead. */
export class Unhandled extends Error {}

type JsonObject = { readonly [key: string]: JsonValue };

/** A field as the writer needs it, made once per message type. */
interface FieldPlan {
  readonly field: DescField;
  readonly jsonName: string;
  /** The proto name, which a JSON form may use instead (`undefined` when it is the JSON name). */
  readonly protoName: string | undefined;
  /** Written even when it holds its type's zero value: a oneof member, `optional`, a message. */
  readonly explicit: boolean;
  /** A oneof member: the bit of its oneof among the message's (0 for none). */
  readonly oneofBit: number;
}

const plans = new WeakMap<DescMessage, readonly FieldPlan[]>();

/** The fields of `desc` in the order protobuf-es writes them: by field number. */
function planOf(desc: DescMessage): readonly FieldPlan[] {
  let plan = plans.get(desc);
  if (plan === undefined) {
    plan = [...desc.fields]
      .sort((a, b) => a.number - b.number)
      .map((field) => ({
        field,
        jsonName: field.jsonName,
        protoName: field.name === field.jsonName ? undefined : field.name,
        // FeatureSet_FieldPresence.IMPLICIT is 2: proto3's plain scalars, left out when zero.
        explicit: field.oneof !== undefined || field.presence !== 2 || field.fieldKind === 'message',
        oneofBit: field.oneof === undefined ? 0 : 1 << desc.oneofs.indexOf(field.oneof),
      }));
    if (desc.oneofs.length > 30) throw new Unhandled('more oneofs than bits');
    plans.set(desc, plan);
  }
  return plan;
}

/** Kept from call to call: `finish()` hands out a copy of what was written and keeps the buffer. */
const writer = new BinaryWriter();

/** The message's binary, or `Unhandled` (after which the writer is left clean for the next call). */
export function writeJsonMessage(desc: DescMessage, json: JsonValue): Uint8Array {
  try {
    writeFields(writer, desc, asObject(json));
    return writer.finish();
  } catch (error) {
    writer.finish();
    throw error;
  }
}

function writeFields(w: BinaryWriter, desc: DescMessage, json: JsonObject): void {
  const plan = planOf(desc);
  let oneofsSeen = 0;
  for (let i = 0; i < plan.length; i++) {
    const { field, jsonName, protoName, explicit, oneofBit } = plan[i]!;
    let value = json[jsonName];
    if (value === undefined && protoName !== undefined) value = json[protoName];
    if (value === undefined) continue;
    if (value === null) {
      // Null is the field's default, except for a google.protobuf.Value, which holds a null.
      if (field.fieldKind === 'message' && field.message.typeName === 'google.protobuf.Value') {
        w.tag(field.number, WireType.LengthDelimited).fork();
        writeValue(w, null);
        w.join();
      }
      continue;
    }
    if (oneofBit !== 0) {
      if ((oneofsSeen & oneofBit) !== 0) throw new Unhandled('two members of one oneof');
      oneofsSeen |= oneofBit;
    }
    switch (field.fieldKind) {
      case 'scalar':
        writeScalarField(w, field.number, field.scalar, value, explicit);
        break;
      case 'enum':
        writeEnumField(w, field, value, explicit);
        break;
      case 'message':
        writeMessageField(w, field.number, field.message, value);
        break;
      case 'list':
        writeList(w, field, value);
        break;
      case 'map':
        writeMap(w, field, value);
        break;
    }
  }
}

function writeScalarField(w: BinaryWriter, number: number, scalar: ScalarType, value: JsonValue, explicit: boolean): void {
  switch (scalar) {
    case ScalarType.STRING:
      if (typeof value !== 'string') throw new Unhandled('not a string');
      if (value !== '' || explicit) w.tag(number, WireType.LengthDelimited).string(value);
      return;
    case ScalarType.BOOL:
      if (typeof value !== 'boolean') throw new Unhandled('not a boolean');
      if (value || explicit) w.tag(number, WireType.Varint).bool(value);
      return;
    case ScalarType.INT32:
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new Unhandled('not an int32');
      if (value !== 0 || explicit) w.tag(number, WireType.Varint).int32(value);
      return;
    case ScalarType.BYTES: {
      if (typeof value !== 'string') throw new Unhandled('not base64');
      const bytes = base64Decode(value);
      if (bytes.byteLength > 0 || explicit) w.tag(number, WireType.LengthDelimited).bytes(bytes);
      return;
    }
    default:
      throw new Unhandled(`scalar type ${scalar}`);
  }
}

function writeEnumField(w: BinaryWriter, field: DescField & { fieldKind: 'enum' }, value: JsonValue, explicit: boolean): void {
  const number = enumNumber(field.enum.values, value);
  if (number !== field.enum.values[0]!.number || explicit) w.tag(field.number, WireType.Varint).int32(number);
}

function enumNumber(values: readonly { name: string; number: number }[], value: JsonValue): number {
  if (typeof value === 'string') {
    const found = values.find((candidate) => candidate.name === value);
    if (found) return found.number;
  }
  throw new Unhandled('not an enum value of the proto');
}

function writeMessageField(w: BinaryWriter, number: number, desc: DescMessage, value: JsonValue): void {
  w.tag(number, WireType.LengthDelimited).fork();
  writeMessageBody(w, desc, value);
  w.join();
}

/** A message's fields, the well-known types A2A's proto uses in their own JSON forms. */
function writeMessageBody(w: BinaryWriter, desc: DescMessage, value: JsonValue): void {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      writeTimestamp(w, value);
      break;
    case 'google.protobuf.Struct':
      writeStruct(w, asObject(value));
      break;
    case 'google.protobuf.Value':
      writeValue(w, value);
      break;
    default:
      if (desc.typeName.startsWith('google.protobuf.')) throw new Unhandled(desc.typeName);
      writeFields(w, desc, asObject(value));
  }
}

function writeList(w: BinaryWriter, field: DescField & { fieldKind: 'list' }, value: JsonValue): void {
  if (!Array.isArray(value)) throw new Unhandled('not an array');
  if (field.listKind === 'message') {
    for (const item of value) {
      if (item === null) throw new Unhandled('null in a list');
      writeMessageField(w, field.number, field.message, item);
    }
    return;
  }
  if (field.listKind === 'scalar' && field.scalar === ScalarType.STRING) {
    for (const item of value) {
      if (typeof item !== 'string') throw new Unhandled('not a string');
      w.tag(field.number, WireType.LengthDelimited).string(item);
    }
    return;
  }
  // Packed lists (enums, numbers): none in A2A 1.0's proto.
  throw new Unhandled('a packed list');
}

function writeMap(w: BinaryWriter, field: DescField & { fieldKind: 'map' }, value: JsonValue): void {
  if (field.mapKey !== ScalarType.STRING) throw new Unhandled('a map not keyed by string');
  const record = asObject(value);
  for (const key of Object.keys(record)) {
    const entry = record[key]!;
    w.tag(field.number, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(key);
    if (field.mapKind === 'message') writeMessageField(w, 2, field.message, entry);
    else if (field.mapKind === 'scalar' && field.scalar === ScalarType.STRING && typeof entry === 'string') {
      w.tag(2, WireType.LengthDelimited).string(entry);
    } else throw new Unhandled('a map of other values');
    w.join();
  }
}

/** google.protobuf.Struct: its `fields` map (1) of Values. */
function writeStruct(w: BinaryWriter, json: JsonObject): void {
  for (const key of Object.keys(json)) {
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(key);
    w.tag(2, WireType.LengthDelimited).fork();
    writeValue(w, json[key]!);
    w.join();
    w.join();
  }
}

/** google.protobuf.Value: null_value (1), number_value (2), string_value (3), bool_value (4), struct_value (5), list_value (6). */
function writeValue(w: BinaryWriter, value: JsonValue): void {
  if (value === null) w.tag(1, WireType.Varint).int32(0);
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Unhandled('not a finite number');
    w.tag(2, WireType.Bit64).double(value);
  } else if (typeof value === 'string') w.tag(3, WireType.LengthDelimited).string(value);
  else if (typeof value === 'boolean') w.tag(4, WireType.Varint).bool(value);
  else if (Array.isArray(value)) {
    w.tag(6, WireType.LengthDelimited).fork();
    for (const item of value) {
      w.tag(1, WireType.LengthDelimited).fork();
      writeValue(w, item);
      w.join();
    }
    w.join();
  } else {
    w.tag(5, WireType.LengthDelimited).fork();
    writeStruct(w, value as JsonObject);
    w.join();
  }
}

/** RFC 3339, as proto3's JSON writes a Timestamp: `Z` or an offset, up to nine digits of fraction. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-]\d{2}:\d{2}))$/;
/** Date's toISOString: RFC 3339 with milliseconds, in UTC. */
const ISO_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in ms: the range proto3 allows. */
const RANGE_MS = { min: -62135596800000, max: 253402300799000 };

/** google.protobuf.Timestamp: seconds (1) and nanos (2), each left out when zero; read as protobuf-es reads it. */
function writeTimestamp(w: BinaryWriter, value: JsonValue): void {
  // What the kit writes (Date's toISOString, a year from 1970): read at once.
  if (typeof value === 'string' && ISO_MILLISECONDS.test(value)) {
    const ms = Date.parse(value);
    if (ms >= 0 && ms <= RANGE_MS.max) {
      const seconds = Math.floor(ms / 1000);
      const nanos = (ms - seconds * 1000) * 1_000_000;
      if (seconds !== 0) w.tag(1, WireType.Varint).int64(seconds);
      if (nanos !== 0) w.tag(2, WireType.Varint).int32(nanos);
      return;
    }
  }
  const parts = typeof value === 'string' ? RFC3339.exec(value) : null;
  if (!parts) throw new Unhandled('not an RFC 3339 timestamp');
  const [, year, month, day, hour, minute, second, fraction, offset] = parts;
  const ms = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset ?? 'Z'}`);
  if (Number.isNaN(ms) || ms < RANGE_MS.min || ms > RANGE_MS.max) throw new Unhandled('not a timestamp proto3 allows');
  const seconds = ms / 1000;
  const nanos = fraction === undefined ? 0 : Number(fraction.padEnd(9, '0'));
  if (seconds !== 0) w.tag(1, WireType.Varint).int64(seconds);
  if (nanos !== 0) w.tag(2, WireType.Varint).int32(nanos);
}

function asObject(value: JsonValue): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Unhandled('not an object');
  return value as JsonObject;
}
