// Module resolution hooks for entry-points.test.ts: a package named in `refused` (or a path in
// it) cannot be resolved, as if it were not installed.
let refused = [];

export function initialize(data) {
  refused = data.refused;
}

export async function resolve(specifier, context, next) {
  if (refused.some((name) => specifier === name || specifier.startsWith(`${name}/`))) throw new Error(`refused: ${specifier}`);
  return next(specifier, context);
}
