import { jsonCopy } from '../core/plain-json.js';

/**
 * A copy the caller owns, for what a store hands to readers (`get`, `eventsAfter`): plain JSON,
 * detached from everything the store keeps, so that changing it changes nothing stored.
 */
export function ownCopy<T>(value: T): T {
  return jsonCopy(value);
}
