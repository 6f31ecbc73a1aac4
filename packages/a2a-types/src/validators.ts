import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type {
  AgentCard,
  Artifact,
  JSONRPCRequest,
  Message,
  SendTaskStreamingResponse,
  Task,
  TaskIdParams,
  TaskPushNotificationConfig,
  TaskQueryParams,
  TaskSendParams,
} from './types.js';

/** The project's JSON Schema: the published A2A 0.1.0 schema plus the fixes in SCHEMA-FIXES.md. */
export const a2aSchema: Readonly<Record<string, unknown>> = createRequire(import.meta.url)('../schema/a2a-0.1.0.schema.json');

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

// Compiled once, when this module is first imported. The options keep the input intact:
// no defaults inserted, no coercion, no removal of unknown properties (clients send extras
// such as `acceptedOutputModes`, which the schema allows). allErrors stays off: the first
// failure of each branch is enough to explain it, and it bounds the work done on hostile input.
const ajv = new Ajv({
  strict: false,
  allErrors: false,
  discriminator: true,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
  // Gives each error its parentSchema (a reference, not a copy) so that a rule can carry a
  // readable message in `x-errorMessage` (see FileContent in the schema).
  verbose: true,
});
addFormats.default(ajv, ['uri', 'iso-date-time']);
ajv.addSchema(a2aSchema, 'a2a');

function compile<T>(definition: string): Validator<T> {
  return compileWith<T>(ajv, 'a2a', definition);
}

function compileWith<T>(instance: Ajv, schemaId: string, definition: string): Validator<T> {
  const validate = instance.getSchema(`${schemaId}#/$defs/${definition}`) as ValidateFunction | undefined;
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
  if (error.keyword === 'not' && typeof custom === 'string') return custom;
  return error.message ?? 'is invalid';
}

/** A JSON-RPC 2.0 request object, whatever its method (6.11.1). */
export const validateJSONRPCRequest = compile<JSONRPCRequest>('JSONRPCRequest');
/** Parameters of `tasks/send` and `tasks/sendSubscribe` (7.1.1). */
export const validateTaskSendParams = compile<TaskSendParams>('TaskSendParams');
/** Parameters of `tasks/get` and `tasks/resubscribe` (7.3.1). */
export const validateTaskQueryParams = compile<TaskQueryParams>('TaskQueryParams');
/** Parameters of `tasks/cancel` and `tasks/pushNotification/get` (7.4.1). */
export const validateTaskIdParams = compile<TaskIdParams>('TaskIdParams');
/** Parameters of `tasks/pushNotification/set` (6.10). */
export const validateTaskPushNotificationConfig = compile<TaskPushNotificationConfig>('TaskPushNotificationConfig');
/** An agent card (5.5). */
export const validateAgentCard = compile<AgentCard>('AgentCard');
export const validateMessage = compile<Message>('Message');
export const validateArtifact = compile<Artifact>('Artifact');
export const validateTask = compile<Task>('Task');
/** One SSE `data:` payload of a stream (7.2.1). */
export const validateSendTaskStreamingResponse = compile<SendTaskStreamingResponse>('SendTaskStreamingResponse');

interface PublishedRecord {
  /** JSON Pointer of a place a fix changed. */
  path: string;
  /** What the published schema had there; absent where it had nothing. */
  value?: unknown;
}

let published: { schema: Record<string, unknown>; ajv: Ajv; validators: Map<string, Validator<unknown>> } | undefined;

/**
 * The published A2A 0.1.0 schema, unmodified: rebuilt from the project's schema by undoing each
 * fix, newest first, from what the derive script recorded under `x-published`. What the kit
 * sends must pass it as well as ours (the reference clients validate against it).
 */
export function publishedSchema(): Readonly<Record<string, unknown>> {
  return loadPublished().schema;
}

/**
 * A validator for one definition of the published schema (`SendTaskResponse`,
 * `SendTaskStreamingResponse`, `AgentCard`, ...), compiled on first use. Every issue is reported,
 * not only the first.
 */
export function publishedSchemaValidator(definition: string): Validator<unknown> {
  const { ajv: publishedAjv, validators } = loadPublished();
  let validator = validators.get(definition);
  if (!validator) {
    validator = compileWith(publishedAjv, 'published', definition);
    validators.set(definition, validator);
  }
  return validator;
}

function loadPublished(): NonNullable<typeof published> {
  if (published) return published;
  const schema = structuredClone(a2aSchema) as Record<string, unknown>;
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
  const publishedAjv = new Ajv({ strict: false, allErrors: true, useDefaults: false, coerceTypes: false });
  addFormats.default(publishedAjv);
  publishedAjv.addSchema(schema, 'published');
  return (published = { schema, ajv: publishedAjv, validators: new Map() });
}

let reporting: Ajv | undefined;

/**
 * Every way `value` departs from one definition of the project's schema, not only the first:
 * for reports to a person (a client's warnings about a server's answer). Slower than the
 * validators, and compiled on first use; the validators stay the check on the request path.
 */
export function allIssues(definition: string, value: unknown): ValidationIssue[] {
  if (!reporting) {
    reporting = new Ajv({ strict: false, allErrors: true, discriminator: true, useDefaults: false, coerceTypes: false, verbose: true });
    addFormats.default(reporting, ['uri', 'iso-date-time']);
    reporting.addSchema(a2aSchema, 'a2a');
  }
  const validate = compileWith<unknown>(reporting, 'a2a', definition);
  return validate(value) ? [] : withoutEchoes(validate.issues);
}

/**
 * Drops what only echoes a deeper issue: a failed `anyOf`/`oneOf` and its "must be null" branch
 * (`message: Message | null` fails both ways when the message is wrong), and a part's missing
 * discriminator reported beside its missing `type`.
 */
function withoutEchoes(issues: ValidationIssue[]): ValidationIssue[] {
  const deeper = (issue: ValidationIssue) => issues.some((other) => other !== issue && other.path.startsWith(`${issue.path}/`));
  return issues.filter((issue) => {
    if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf') return !deeper(issue);
    if (issue.keyword === 'type' && issue.params.type === 'null') return !deeper(issue);
    if (issue.keyword === 'discriminator') {
      return !issues.some((other) => other.path === issue.path && other.keyword === 'required');
    }
    return true;
  });
}

/** Human-readable summary of issues, for exceptions and logs. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.path || '(root)'} ${i.message}`).join('; ');
}
