// From the 0.3 object model to 0.1.0's, for the parts both versions carry alike: what a server
// stores from a 0.3 request, and what a client shows of a 0.3 answer in 0.1.0 terms.
import { setOwnField } from '../model/own-field.js';
import type { Message as Message01, Part as Part01 } from '../types.js';
import type { Message, Part } from './types.js';

/**
 * A 0.3 part in 0.1.0's form: `kind` becomes `type`; everything else is kept. A `type` the part
 * carried as an extra never overrides its `kind` (a server refuses such a part first).
 */
export function partFrom03(part: Part): Part01 {
  const mapped: Record<string, unknown> = { type: part.kind };
  copyOwnFields(mapped, part, 'kind', 'type');
  return mapped as unknown as Part01;
}

/**
 * A 0.3 message in 0.1.0's form: parts mapped, `kind` dropped, every other field kept (`messageId`,
 * `contextId`, `taskId`, ... stay as extra properties, which both schemas allow).
 */
export function messageFrom03(message: Message): Message01 {
  const mapped: Record<string, unknown> = {};
  copyOwnFields(mapped, message, 'kind', 'parts');
  mapped.parts = message.parts.map(partFrom03);
  return mapped as unknown as Message01;
}

/**
 * Copies `source`'s own fields but two, in their order, as a spread would. Field by field rather
 * than by rest and spread: in V8 those gave every stored message a hidden class of its own, which
 * the collector traces for as long as the task is kept.
 */
function copyOwnFields(target: Record<string, unknown>, source: object, skip: string, skipToo: string): void {
  for (const key of Object.keys(source)) {
    if (key === skip || key === skipToo) continue;
    setOwnField(target, key, (source as Record<string, unknown>)[key]);
  }
}
