import { createHash } from 'node:crypto';

/** The value with every object's keys sorted: the form whose hash names a schema. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** sha256 of the canonical JSON of a schema (see SCHEMA-FIXES.md for the same as a command). */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)))
    .digest('hex');
}
