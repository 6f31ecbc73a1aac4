// The one way the derive scripts change a published schema: every edit goes through `set`, which
// records what the published schema had at that place (a JSON Pointer and the value, or no value
// where there was nothing). The records are kept at the root of the derived file as
// "x-published", so that a2a-types can rebuild the published schema exactly
// (publishedSchemaValidator) and check what the kit sends against it.
export function schemaEditor(schema) {
  const published = [];
  function set(path, value) {
    const keys = path.split('/').slice(1);
    const last = keys.pop();
    const parent = keys.reduce((node, key) => node[key], schema);
    const pointer = `/${[...keys, last].map((k) => k.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
    if (!published.some((record) => record.path === pointer)) {
      published.push(last in parent ? { path: pointer, value: structuredClone(parent[last]) } : { path: pointer });
    }
    parent[last] = value;
  }
  /** Applies each named fix in order, then the title and description, and stores the records. */
  function apply(fixes, { title, description }) {
    for (const [name, fix] of Object.entries(fixes)) {
      fix();
      process.stdout.write(`applied ${name}\n`);
    }
    set('/title', title);
    set('/description', description);
    schema['x-published'] = published;
    return schema;
  }
  return { set, apply };
}

/**
 * The published schema a derived one was made from, unmodified: each record of "x-published"
 * undone, newest first, on a copy. The build writes it as a module (generate-schema-modules.mjs)
 * and compiles the validators that need it (generate-validators.mjs) from the same result.
 */
export function publishedSchemaOf(derived) {
  const schema = structuredClone(derived);
  const records = schema['x-published'];
  delete schema['x-published'];
  for (const record of [...records].reverse()) {
    const keys = record.path
      .slice(1)
      .split('/')
      .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop();
    const parent = keys.reduce((node, key) => node[key], schema);
    if ('value' in record) parent[last] = record.value;
    else delete parent[last];
  }
  return schema;
}
