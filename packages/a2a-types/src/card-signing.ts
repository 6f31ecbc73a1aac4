// The canonical form of an agent card, what its signatures sign (spec 1.0 8.4.1): the card as the
// 1.0 proto has it (fields it does not declare dropped, default values omitted but those of
// `optional` fields set explicitly and of REQUIRED fields), without `signatures`, serialized by
// RFC 8785 (JCS). `import { canonicalAgentCard10 } from 'a2a-types/card-signing'`.
import { fromJson, type JsonValue, toJson } from '@bufbuild/protobuf';
import canonicalize from 'canonicalize';
import { AgentCardSchema } from './v10/grpc/gen/lf/a2a/v1/a2a_pb.js';

type Json = Record<string, unknown>;

/**
 * The REQUIRED fields (the proto's `field_behavior`) of the card and of what it lists, which the
 * canonical form keeps even when they hold their default value (an empty description, no skills).
 */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  card: ['name', 'description', 'supportedInterfaces', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'],
  interface: ['url', 'protocolBinding', 'protocolVersion'],
  skill: ['id', 'name', 'description', 'tags'],
  provider: ['url', 'organization'],
};

/** The card's canonical form for A2A 1.0 (spec 1.0 8.4.1), the payload its signatures sign. */
export function canonicalAgentCard10(card: unknown): string {
  const { signatures: _signatures, ...unsigned } = (card ?? {}) as Json;
  // Through the proto: what it does not declare is dropped, and default values are omitted as
  // proto3 JSON omits them (an `optional` field set explicitly is kept).
  const message = fromJson(AgentCardSchema, unsigned as JsonValue, { ignoreUnknownFields: true });
  const shaped = toJson(AgentCardSchema, message) as Json;
  delete shaped.signatures;
  keepRequired(shaped, unsigned, REQUIRED.card!);
  listed(shaped.supportedInterfaces, unsigned.supportedInterfaces, REQUIRED.interface!);
  listed(shaped.skills, unsigned.skills, REQUIRED.skill!);
  if (isObject(shaped.provider) && isObject(unsigned.provider)) keepRequired(shaped.provider, unsigned.provider, REQUIRED.provider!);
  return canonicalize(shaped) as string;
}

/**
 * The card's canonical form for A2A 0.3: the card without `signatures`, by RFC 8785. 0.3 has no
 * proto of its own to shape it by; its card is signed as it is served.
 */
export function canonicalAgentCard03(card: unknown): string {
  const { signatures: _signatures, ...unsigned } = (card ?? {}) as Json;
  return canonicalize(unsigned) as string;
}

/** The REQUIRED `fields` the input had that the proto's JSON left out (their value the default): put back as they came. */
function keepRequired(shaped: Json, input: Json, fields: readonly string[]): void {
  for (const field of fields) if (!(field in shaped) && field in input && input[field] !== undefined) shaped[field] = input[field];
}

function listed(shaped: unknown, input: unknown, fields: readonly string[]): void {
  if (!Array.isArray(shaped) || !Array.isArray(input)) return;
  shaped.forEach((entry, i) => {
    if (isObject(entry) && isObject(input[i])) keepRequired(entry, input[i] as Json, fields);
  });
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
