// From the 0.3 object model to 0.1.0's, for the parts both versions carry alike: what a server
// stores from a 0.3 request, and what a client shows of a 0.3 answer in 0.1.0 terms.
import type { Message as Message01, Part as Part01 } from '../types.js';
import type { Message, Part } from './types.js';

/**
 * A 0.3 part in 0.1.0's form: `kind` becomes `type`; everything else is kept. A `type` the part
 * carried as an extra never overrides its `kind` (a server refuses such a part first).
 */
export function partFrom03(part: Part): Part01 {
  const { kind, ...rest } = part;
  const mapped = { type: kind, ...rest } as Part01 & { type: string };
  mapped.type = kind;
  return mapped;
}

/**
 * A 0.3 message in 0.1.0's form: parts mapped, `kind` dropped, every other field kept (`messageId`,
 * `contextId`, `taskId`, ... stay as extra properties, which both schemas allow).
 */
export function messageFrom03(message: Message): Message01 {
  const { kind: _kind, parts, ...rest } = message;
  return { ...rest, parts: parts.map(partFrom03) } as Message01;
}
