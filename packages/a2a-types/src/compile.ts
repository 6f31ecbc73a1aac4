// How validators are made and report: a guard per compiled function, readable issues. The
// request validators' functions are compiled at build time (src/compiled/); the published
// schemas' and allIssues' are compiled here, on first use, by Ajv. Shared by every version's
// validators; not part of the API.
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
 * A validation function compiled at build time (src/compiled/, by scripts/generate-validators.mjs):
 * Ajv's standalone code, which keeps the errors of its last call as an Ajv validator does.
 */
export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * A validator of a function compiled at build time or by Ajv here, which `made` gives: the
 * generated code of a set is run when one of its validators is first called, not when loaded.
 */
export function validatorOf<T>(made: () => CompiledValidator): Validator<T> {
  let issues: ValidationIssue[] = [];
  let validate: CompiledValidator | undefined;
  const guard = ((data: unknown): data is T => {
    validate ??= made();
    if (validate(data)) return true;
    issues = toIssues(validate.errors);
    return false;
  }) as Validator<T>;
  Object.defineProperty(guard, 'issues', { get: () => issues });
  return guard;
}

/**
 * Compiles one definition of a schema added to `instance` under `schemaId`, here and now, with
 * `new Function`: for the checks only clients and tools make (the published schemas' validators,
 * allIssues). What a request is checked with is compiled at build time.
 */
export function compileWith<T>(instance: Ajv, schemaId: string, defsKey: string, definition: string): Validator<T> {
  const validate = instance.getSchema(`${schemaId}#/${defsKey}/${definition}`) as ValidateFunction | undefined;
  if (!validate) throw new Error(`a2a-types: no schema definition ${definition}`);
  return validatorOf<T>(() => validate);
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

/**
 * A validator by definition: the one compiled at build time when `compiled` holds it (made once a
 * definition), else what `atRunTime` gives.
 */
export function compiledFirst(
  definitions: readonly string[],
  compiled: () => Readonly<Record<string, CompiledValidator>>,
  atRunTime: (definition: string) => Validator<unknown>,
): (definition: string) => Validator<unknown> {
  const made = new Map<string, Validator<unknown>>();
  return (definition) => {
    if (!definitions.includes(definition)) return atRunTime(definition);
    let validator = made.get(definition);
    if (!validator) {
      validator = validatorOf(() => compiled()[definition]!);
      made.set(definition, validator);
    }
    return validator;
  };
}

/**
 * Validators of a published schema, compiled here on first use: `published` is the schema a
 * derived one (`a2aSchema`, the 0.3 or 1.0 one) was made from, rebuilt at build time by undoing
 * each fix the derive script recorded under `x-published` (scripts/schema-edits.mjs). Every issue
 * is reported, not only the first.
 */
export function publishedValidators(
  published: () => Readonly<Record<string, unknown>>,
  defsKey: string,
  {
    AjvClass = Ajv,
    addTo = (instance: Ajv, schema: Record<string, unknown>): unknown => instance.addSchema(schema, 'published'),
  }: { AjvClass?: new (options: Options) => Ajv; addTo?: (instance: Ajv, schema: Record<string, unknown>) => unknown } = {},
): (definition: string) => Validator<unknown> {
  let publishedAjv: Ajv | undefined;
  const validators = new Map<string, Validator<unknown>>();
  return (definition) => {
    let validator = validators.get(definition);
    if (!validator) {
      if (!publishedAjv) {
        // scripts/generate-validators.mjs compiles the one published validator a request path
        // uses (the 1.0 card's) with these options, at build time.
        publishedAjv = new AjvClass({ strict: false, allErrors: true, useDefaults: false, coerceTypes: false, validateSchema: false });
        addFormats.default(publishedAjv);
        addTo(publishedAjv, published() as Record<string, unknown>);
      }
      validator = compileWith(publishedAjv, 'published', defsKey, definition);
      validators.set(definition, validator);
    }
    return validator;
  };
}
