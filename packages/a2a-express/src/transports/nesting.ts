// How deep a request nests, checked the same way on every binding (HTTP bodies, gRPC requests' JSON form).

/**
 * Whether objects/arrays nest deeper than `maxDepth`. JSON.parse copes with any depth, but
 * JSON.stringify and structuredClone overflow the stack at a few thousand levels, so deeper
 * input must be refused here, before it is stored and echoed.
 */
export function nestingExceeds(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
