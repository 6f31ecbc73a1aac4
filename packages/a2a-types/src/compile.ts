// How a derived schema becomes validators: one Ajv set-up for requests, one compiled guard per
// definition, readable issues, and the published schema rebuilt from a derived one. Shared by the
// 0.1.0 validators (validators.ts) and the 0.3 ones (v03/validators.ts); not part of the API.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** One validation failure, as sent to clients in `error.data` of a -32602. */
export interface ValidationIssue {
  /** JSON Pointer to the offending value, relative to what was validated (`""` is the whole). */
  path: string;
  message: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `minItems`, ...). */
  keyword: string;
  params: Record<string, unknown>;
}

/** A compiled validator: a type guard that keeps the issues of its last failure. */
export interface Validator<T> {
  (data: unknown): data is T;
  /** The issues found by the last call that returned false. */
  readonly issues: ValidationIssue[];
}

/**
 * An Ajv instance with the options every request validator uses. They keep the input intact: no
 * defaults inserted, no coercion, no removal of unknown properties (clients send extras such as
 * `acceptedOutputModes`, which the schema allows). allErrors stays off: the first failure of each
 * branch is enough to explain it, and it bounds the work done on hostile input.
 */
export function requestAjv(AjvClass: new (options: Options) => Ajv = Ajv): Ajv {
  const instance = new AjvClass({
    strict: false,
    allErrors: false,
    discriminator: true,
    useDefaults: false,
    coerceTypes: false,
    removeAdditional: false,
    // Gives each error its parentSchema (a reference, not a copy) so that a rule can carry a
    // readable message in `x-errorMessage` (see FileContent in the schema).
    verbose: true,
    // No schema added is checked against its meta-schema here: they are this package's own
    // files and what it derives from them, each checked by test/meta-schemas.test.ts. Checking
    // compiled the meta-schema in every instance, some 80 ms of a process's start (an agent
    // checks its cards when it is made). The same in every Ajv of the package.
    validateSchema: false,
  });
  addFormats.default(instance, ['uri', 'iso-date-time']);
  return instance;
}

/** Compiles one definition of a schema added to `instance` under `schemaId`. */
export function compileWith<T>(instance: Ajv, schemaId: string, defsKey: string, definition: string): Validator<T> {
  const validate = instance.getSchema(`${schemaId}#/${defsKey}/${definition}`) as ValidateFunction | undefined;
  if (!validate) throw new Error(`a2a-types: no schema definition ${definition}`);
  let issues: ValidationIssue[] = [];
  const guard = ((data: unknown): data is T => {
    if (validate(data)) return true;
    issues = toIssues(validate.errors);
    return false;
  }) as Validator<T>;
  Object.defineProperty(guard, 'issues', { get: () => issues });
  return guard;
}

/**
 * A validator compiled on its first call, not when its module is loaded: for a schema that a
 * program may never use (the 0.3 one, in an agent whose clients all speak 0.1.0).
 */
export function lazyValidator<T>(compile: () => Validator<T>): Validator<T> {
  let compiled: Validator<T> | undefined;
  const guard = ((data: unknown): data is T => (compiled ??= compile())(data)) as Validator<T>;
  Object.defineProperty(guard, 'issues', { get: () => compiled?.issues ?? [] });
  return guard;
}

function toIssues(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  return (errors ?? []).map((e) => ({
    path: e.instancePath,
    message: readableMessage(e),
    keyword: e.keyword,
    params: e.params as Record<string, unknown>,
  }));
}

function readableMessage(error: ErrorObject): string {
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-errorMessage'];
  if ((error.keyword === 'not' || error.keyword === 'oneOf') && typeof custom === 'string') return custom;
  return error.message ?? 'is invalid';
}

interface PublishedRecord {
  /** JSON Pointer of a place a fix changed. */
  path: string;
  /** What the published schema had there; absent where it had nothing. */
  value?: unknown;
}

/** A published schema rebuilt from a derived one, with validators compiled on first use. */
export interface PublishedSchema {
  readonly schema: Readonly<Record<string, unknown>>;
  validator(definition: string): Validator<unknown>;
}

/**
 * The published schema a derived one (`a2aSchema`, or the 0.3 one) was made from, unmodified:
 * rebuilt by undoing each fix, newest first, from what the derive script recorded under
 * `x-published`. Built on first use.
 */
export function publishedFrom(
  derived: Readonly<Record<string, unknown>>,
  defsKey: string,
  {
    AjvClass = Ajv,
    addTo = (instance: Ajv, schema: Record<string, unknown>): unknown => instance.addSchema(schema, 'published'),
  }: { AjvClass?: new (options: Options) => Ajv; addTo?: (instance: Ajv, schema: Record<string, unknown>) => unknown } = {},
): () => PublishedSchema {
  let built: PublishedSchema | undefined;
  return () => {
    if (built) return built;
    const schema = structuredClone(derived) as Record<string, unknown>;
    const records = schema['x-published'] as PublishedRecord[];
    delete schema['x-published'];
    for (const record of [...records].reverse()) {
      const keys = record.path
        .slice(1)
        .split('/')
        .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
      const last = keys.pop()!;
      const parent = keys.reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, schema);
      if ('value' in record) parent[last] = record.value;
      else delete parent[last];
    }
    const publishedAjv = new AjvClass({
      strict: false,
      allErrors: true,
      useDefaults: false,
      coerceTypes: false,
      validateSchema: false,
    });
    addFormats.default(publishedAjv);
    addTo(publishedAjv, schema);
    const validators = new Map<string, Validator<unknown>>();
    built = {
      schema,
      validator(definition) {
        let validator = validators.get(definition);
        if (!validator) {
          validator = compileWith(publishedAjv, 'published', defsKey, definition);
          validators.set(definition, validator);
        }
        return validator;
      },
    };
    return built;
  };
}
