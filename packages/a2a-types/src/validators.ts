import schema01 from './schemas/a2a-0.1.0.js';
import published01 from './schemas/a2a-0.1.0.published.js';
import { validators as compiled } from './compiled/validators-0.1.0.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { compileWith, publishedValidators, validatorOf, type ValidationIssue, type Validator } from './compile.js';
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
export const a2aSchema: Readonly<Record<string, unknown>> = schema01;

export type { ValidationIssue, Validator } from './compile.js';

// Compiled at build time (scripts/generate-validators.mjs): nothing is compiled when they are
// loaded or called. The code of the set is run at the first call of one of them.
const compile = <T>(definition: keyof ReturnType<typeof compiled>): Validator<T> => validatorOf<T>(() => compiled()[definition]);

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

const published01Validator = publishedValidators(published01, '$defs');

/**
 * The published A2A 0.1.0 schema, unmodified. What the kit sends must pass it as well as ours
 * (the reference clients validate against it).
 */
export function publishedSchema(): Readonly<Record<string, unknown>> {
  return published01();
}

/**
 * A validator for one definition of the published schema (`SendTaskResponse`,
 * `SendTaskStreamingResponse`, `AgentCard`, ...), compiled on first use. Every issue is reported,
 * not only the first.
 */
export function publishedSchemaValidator(definition: string): Validator<unknown> {
  return published01Validator(definition);
}

let reporting: Ajv | undefined;

/**
 * Every way `value` departs from one definition of the project's schema, not only the first:
 * for reports to a person (a client's warnings about a server's answer). Slower than the
 * validators, and compiled on first use; the validators stay the check on the request path.
 */
export function allIssues(definition: string, value: unknown): ValidationIssue[] {
  if (!reporting) {
    reporting = new Ajv({
      strict: false,
      allErrors: true,
      discriminator: true,
      useDefaults: false,
      coerceTypes: false,
      verbose: true,
      validateSchema: false,
    });
    addFormats.default(reporting, ['uri', 'iso-date-time']);
    reporting.addSchema(a2aSchema, 'a2a');
  }
  const validate = compileWith<unknown>(reporting, 'a2a', '$defs', definition);
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
