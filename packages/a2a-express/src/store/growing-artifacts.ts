// The in-memory store's artifact merge: the same artifacts as `mergeArtifact`, but an append
// costs O(chunk), not O(artifact), so a stream of n chunks costs O(n) rather than O(n²). Only the
// in-memory store uses it, and what it builds reads like a plain artifact whose parts are frozen.
import type { Artifact, Part } from '../core/model.js';
import { appendedFields, extraFieldsOf, placeArtifact } from './fold.js';

/**
 * Parts of an artifact grown by appends: a backing array shared along the chain of records, and
 * how many of its parts this artifact owns. Appending copies nothing when the backing array ends
 * where this artifact does (the usual case: each chunk extends the newest record).
 */
interface Growth {
  readonly backing: Part[];
  readonly count: number;
  readonly extraFields: readonly string[];
  /** This artifact's parts as a frozen array, made on first read. */
  parts: readonly Part[] | undefined;
}

/** Where a grown artifact keeps its Growth: a non-enumerable key that JSON, spreads and equality ignore. */
const GROWTH = Symbol('growth');

/**
 * `parts` of a grown artifact: its own parts, as one frozen array made on the first read and
 * the same on every read after. One getter shared by every grown artifact (a closure per
 * artifact would keep V8 from sharing their shape).
 */
const GROWN_PARTS: PropertyDescriptor = {
  enumerable: true,
  get(this: { [GROWTH]: Growth }) {
    const growth = this[GROWTH];
    return (growth.parts ??= Object.freeze(growth.backing.slice(0, growth.count)));
  },
};

/** {@link mergeArtifact}'s result, with appends that share storage. */
export function mergeGrowingArtifact(artifacts: readonly Artifact[], chunk: Artifact): Artifact[] {
  return placeArtifact(artifacts, chunk, (existing, index) => appendChunk(existing, chunk, index));
}

function appendChunk(existing: Artifact, chunk: Artifact, index: number): Artifact {
  const previous = (existing as { [GROWTH]?: Growth })[GROWTH];
  let backing: Part[];
  let count: number;
  let extraFields: readonly string[];
  if (previous) {
    ({ count, extraFields } = previous);
    // Another record appended to this one's backing already: branch off with a copy.
    backing = previous.backing.length === count ? previous.backing : previous.backing.slice(0, count);
  } else {
    backing = existing.parts.slice();
    count = backing.length;
    extraFields = extraFieldsOf(existing);
  }
  for (const part of chunk.parts) backing.push(part);
  count += chunk.parts.length;
  const grown = appendedFields(existing, chunk, index, extraFields);
  Object.defineProperty(grown, GROWTH, { value: { backing, count, extraFields, parts: undefined } satisfies Growth });
  Object.defineProperty(grown, 'parts', GROWN_PARTS);
  return grown;
}
