// The stores' artifact merge: the same artifacts as `mergeArtifact` (model/fold.ts), but an append
// costs O(chunk), not O(artifact), so a stream of n chunks costs O(n) rather than O(n²). The
// built-in stores fold with it the records they hold in memory (the in-memory store's, and the
// Redis and PostgreSQL stores' caches); what it builds reads like a plain artifact whose parts are
// frozen. How a store holds artifacts, not what they are: a store's business, beside the model.
import type { Artifact, Part } from '../model/task.js';
import { appendedFields, extraFieldsOf, placeArtifact } from '../model/fold.js';

/**
 * Parts of an artifact grown by appends: a backing array shared along the chain of records, and
 * how many of its parts this artifact owns. Appending copies nothing when the backing array ends
 * where this artifact does (the usual case: each chunk extends the newest record).
 */
interface Growth {
  readonly backing: Part[];
  count: number;
  readonly extraFields: readonly string[];
  /** This artifact's parts as a frozen array, made on first read. */
  parts: readonly Part[] | undefined;
  /** The fold that made this artifact (see `ArtifactMerge`): until it ends, appends change it in place. */
  readonly fold: number | undefined;
}

/** A grown artifact's fields, as an append in place changes them. */
type GrownArtifact = { -readonly [K in keyof Artifact]: Artifact[K] } & { [GROWTH]: Growth };

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

/**
 * {@link mergeArtifact}'s result, with appends that share storage. A chunk appended to an artifact
 * this fold made already grows it in place, and `artifacts` come back as they are: a batch of n
 * chunks makes one artifact rather than n (each with its accessor defined, a slow path in V8).
 */
export function mergeGrowingArtifact(artifacts: readonly Artifact[], chunk: Artifact, fold?: number): Artifact[] {
  if (fold !== undefined && chunk.append) {
    const index = chunk.index ?? 0;
    const existing = artifacts.find((a) => (a.index ?? 0) === index);
    if (existing !== undefined && growsInPlace(existing, chunk, fold)) {
      const growth = existing[GROWTH];
      for (const part of chunk.parts) growth.backing.push(part);
      growth.count += chunk.parts.length;
      growth.parts = undefined;
      if (chunk.metadata) existing.metadata = { ...existing.metadata, ...chunk.metadata };
      return artifacts as Artifact[];
    }
  }
  return placeArtifact(artifacts, chunk, (existing, index) => appendChunk(existing, chunk, index, fold));
}

/**
 * Whether `chunk` can go into `existing` in place: `existing` was made by this fold and ends its
 * backing array, and the chunk adds no field the artifact lacks (a new field would come after
 * `parts`, where a fresh artifact has it before).
 */
function growsInPlace(existing: Artifact, chunk: Artifact, fold: number): existing is GrownArtifact {
  const growth = (existing as { [GROWTH]?: Growth })[GROWTH];
  return (
    growth !== undefined &&
    growth.fold === fold &&
    growth.backing.length === growth.count &&
    (chunk.name === undefined || existing.name !== undefined) &&
    (chunk.description === undefined || existing.description !== undefined) &&
    (chunk.metadata == null || existing.metadata !== undefined)
  );
}

function appendChunk(existing: Artifact, chunk: Artifact, index: number, fold: number | undefined): Artifact {
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
  Object.defineProperty(grown, GROWTH, { value: { backing, count, extraFields, parts: undefined, fold } satisfies Growth });
  Object.defineProperty(grown, 'parts', GROWN_PARTS);
  return grown;
}
