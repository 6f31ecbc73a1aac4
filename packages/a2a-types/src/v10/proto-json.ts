// ProtoJSON as a client may send it, read the way the 1.0 proto allows (spec 1.0 5.5: parsers
// accept a field's proto name as well as its JSON name): a snake_case field name becomes its
// camelCase one, an int32 sent as a decimal string becomes a number, an enum sent as its number
// becomes its name, a null is an absent field, `"true"`/`"false"` in a boolean field a boolean. Guided by the project schema, so that only the fields of A2A objects are
// renamed: what a client put in `metadata` or a data part is never touched.
import type { ValidationIssue } from '../compile.js';

type SchemaNode = Readonly<Record<string, unknown>>;

/**
 * Rewrites `value` in place to the JSON names and types of `definition`, recursively. Returns the
 * issues it found (a field given under both its names); `value` is otherwise left for the schema
 * to judge.
 */
export function normalizeProtoJson(
  value: unknown,
  definition: SchemaNode,
  definitions: Readonly<Record<string, SchemaNode>>,
  at = '',
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  normalizeInto(value, definition, definitions, at === '' ? [] : [at], issues);
  return issues;
}

/**
 * `normalizeProtoJson` on one object, its issues added to `issues`. Every request of 1.0 goes
 * through here, so it allocates little: the path is a stack of segments, joined only for an issue.
 */
function normalizeInto(
  value: unknown,
  definition: SchemaNode,
  definitions: Readonly<Record<string, SchemaNode>>,
  path: string[],
  issues: ValidationIssue[],
): void {
  if (!isPlainObject(value)) return;
  const properties = (definition.properties ?? {}) as Record<string, SchemaNode>;
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(properties, key) || !key.includes('_')) continue;
    const jsonName = key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    if (!Object.hasOwn(properties, jsonName)) continue;
    if (Object.hasOwn(value, jsonName)) {
      issues.push({
        path: [...path, key].map((segment) => `/${segment}`).join(''),
        message: `is ${jsonName} again: send one of the two`,
        keyword: 'duplicate',
        params: { jsonName },
      });
      continue;
    }
    value[jsonName] = value[key];
    delete value[key];
  }
  for (const [name, schema] of propertyList(definition, properties)) {
    if (!Object.hasOwn(value, name)) continue;
    // ProtoJSON reads null as the field's default, that is as absent; only a `google.protobuf.Value`
    // (a data part's `data`) holds a null of its own.
    if (value[name] === null && schema.$ref !== '#/definitions/Value') {
      delete value[name];
      continue;
    }
    value[name] = scalar(value[name], schema);
    const field = value[name];
    path.push(name);
    const target = referenced(schema, definitions);
    if (target) normalizeInto(field, target, definitions, path, issues);
    else if (schema.type === 'array' && Array.isArray(field)) {
      const items = referenced((schema.items ?? {}) as SchemaNode, definitions);
      if (items) forEachMember(field, (member) => normalizeInto(member, items, definitions, path, issues), path);
    } else if (schema.type === 'object' && isPlainObject(field)) {
      const values = referenced((schema.additionalProperties ?? {}) as SchemaNode, definitions);
      if (values) forEachMember(field, (member) => normalizeInto(member, values, definitions, path, issues), path);
    }
    path.pop();
  }
}

/** Calls `visit` on each member of an array or map, its index or key on the path meanwhile. */
function forEachMember(members: unknown[] | Record<string, unknown>, visit: (member: unknown) => void, path: string[]): void {
  const keys = Array.isArray(members) ? members.keys() : Object.keys(members);
  for (const key of keys) {
    path.push(String(key));
    visit((members as Record<string, unknown>)[key as string]);
    path.pop();
  }
}

/** A definition's properties as a list, made once per definition (the schema never changes). */
const propertyLists = new WeakMap<SchemaNode, [string, SchemaNode][]>();
function propertyList(definition: SchemaNode, properties: Record<string, SchemaNode>): [string, SchemaNode][] {
  let list = propertyLists.get(definition);
  if (!list) propertyLists.set(definition, (list = Object.entries(properties)));
  return list;
}

/**
 * An int32 given as a decimal string, as its number; an enum given as its number (or its number
 * as a string, as a query parameter carries it), as its name; a boolean given as `"true"` or
 * `"false"` (a query parameter), as the boolean.
 */
function scalar(field: unknown, schema: SchemaNode): unknown {
  if (schema.type === 'boolean' && (field === 'true' || field === 'false')) return field === 'true';
  const branches = schema.anyOf as SchemaNode[] | undefined;
  if (!branches) return field;
  if (typeof field === 'string' && /^-?[0-9]+$/.test(field) && branches.some((b) => b.type === 'integer')) {
    const enumNames = branches.find((b) => Array.isArray(b.enum));
    if (!enumNames) return Number(field);
    field = Number(field);
  }
  if (typeof field === 'number' && Number.isInteger(field)) {
    const unspecified = branches.find((b) => typeof b.pattern === 'string' && /_UNSPECIFIED\$$/.test(b.pattern as string));
    const named = branches.find((b) => Array.isArray(b.enum))?.enum as string[] | undefined;
    if (unspecified && named) {
      // The proto numbers an enum's values in the order the schema lists them, 0 being UNSPECIFIED.
      const names = [(unspecified.pattern as string).slice(1, -1), ...named];
      return names[field] ?? field;
    }
  }
  return field;
}

function referenced(schema: SchemaNode, definitions: Readonly<Record<string, SchemaNode>>): SchemaNode | undefined {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/definitions/')) return undefined;
  return definitions[ref.slice('#/definitions/'.length)];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
