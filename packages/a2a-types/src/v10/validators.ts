import schema10 from '../schemas/a2a-1.0.js';
import published10 from '../schemas/a2a-1.0.published.js';
import { validators as compiled } from '../compiled/validators-1.0.js';
import { definitions as compiledPublishedTitles, validators as compiledPublished } from '../compiled/published-1.0.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compiledFirst, publishedValidators, validatorOf, type Validator } from '../compile.js';
import { normalizeProtoJson } from './proto-json.js';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from './types.js';

/** The project's A2A 1.0 JSON Schema: the published bundle plus the fixes in SCHEMA-FIXES.md (1.0). */
export const a2aSchema10: Readonly<Record<string, unknown>> = schema10;
const definitions = a2aSchema10.definitions as Record<string, Record<string, unknown>>;

/**
 * A request validator: the value is first normalized in place (snake_case names, int32 strings,
 * enum numbers; see `normalizeProtoJson`), then checked against the definition `title`, compiled
 * at build time (scripts/generate-validators.mjs), as the 0.1.0 ones.
 */
function compile<T>(title: keyof ReturnType<typeof compiled>): Validator<T> {
  const checked = validatorOf<T>(() => compiled()[title]);
  let issues: Validator<T>['issues'] = [];
  const guard = ((data: unknown): data is T => {
    const found = normalizeProtoJson(data, definitions[title]!, definitions);
    if (found.length > 0) {
      issues = found;
      return false;
    }
    if (checked(data)) return true;
    issues = checked.issues;
    return false;
  }) as Validator<T>;
  Object.defineProperty(guard, 'issues', { get: () => issues });
  return guard;
}

export const validateSendMessageRequest = compile<SendMessageRequest>('Send Message Request');
export const validateGetTaskRequest = compile<GetTaskRequest>('Get Task Request');
export const validateListTasksRequest = compile<ListTasksRequest>('List Tasks Request');
export const validateCancelTaskRequest = compile<CancelTaskRequest>('Cancel Task Request');
export const validateSubscribeToTaskRequest = compile<SubscribeToTaskRequest>('Subscribe To Task Request');
/** The params of `CreateTaskPushNotificationConfig`: the config itself. */
export const validateTaskPushNotificationConfig = compile<TaskPushNotificationConfig>('Task Push Notification Config');
export const validateGetTaskPushNotificationConfigRequest = compile<GetTaskPushNotificationConfigRequest>(
  'Get Task Push Notification Config Request',
);
export const validateListTaskPushNotificationConfigsRequest = compile<ListTaskPushNotificationConfigsRequest>(
  'List Task Push Notification Configs Request',
);
export const validateDeleteTaskPushNotificationConfigRequest = compile<DeleteTaskPushNotificationConfigRequest>(
  'Delete Task Push Notification Config Request',
);
export const validateGetExtendedAgentCardRequest = compile<GetExtendedAgentCardRequest>('Get Extended Agent Card Request');

/** The bundle names each definition's file; its references are to those names. */
const fileNameOf = (title: string): string => {
  const protoName = title.replaceAll(' ', '');
  const wellKnown = ['Struct', 'Value', 'Timestamp'].includes(protoName);
  return `${wellKnown ? 'google.protobuf' : 'lf.a2a.v1'}.${protoName}.jsonschema.json`;
};

const publishedValidator = publishedValidators(published10, 'definitions', {
  AjvClass: Ajv2020 as unknown as typeof import('ajv').Ajv,
  // The published definitions refer to each other by file name: each is added under its own.
  addTo(publishedAjv, schema) {
    const defs = schema.definitions as Record<string, Record<string, unknown>>;
    for (const [title, definition] of Object.entries(defs)) publishedAjv.addSchema({ ...definition, $id: fileNameOf(title) });
    publishedAjv.addSchema({ definitions: Object.fromEntries(Object.keys(defs).map((t) => [t, { $ref: fileNameOf(t) }])) }, 'published');
  },
});

/** The published A2A 1.0 schema bundle, unmodified: what the kit sends over 1.0 must pass it. */
export function publishedSchema10(): Readonly<Record<string, unknown>> {
  return published10();
}

/** Compiled at build time for the definitions a client checks every answer with, else on first use. */
const publishedValidatorOf = compiledFirst(compiledPublishedTitles, compiledPublished, (title) =>
  publishedValidator(encodeURIComponent(title)),
);

/**
 * A validator for one definition of the published 1.0 bundle, by its title (`Send Message
 * Response`, `Stream Response`, `Task`, `Agent Card`, ...): compiled at build time for those a
 * client checks every answer with, else compiled on first use.
 */
export function publishedSchemaValidator10(title: string): Validator<unknown> {
  return publishedValidatorOf(title);
}

/**
 * A card as the published 1.0 bundle checks it (strict: no field 1.0 does not define): what
 * `publishedSchemaValidator10('Agent Card')` checks, compiled at build time, since an agent checks
 * its card when it is made.
 */
export const validateAgentCard10 = publishedSchemaValidator10('Agent Card') as Validator<AgentCard>;
