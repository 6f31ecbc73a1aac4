/**
 * Sets `target[key]` as an own field, for copies built field by field on a hot path (a spread
 * would define each field, and cost more). A `__proto__` field stays a field: an assignment would
 * set the prototype instead, and a field a client or an agent sent would be lost.
 */
export function setOwnField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
