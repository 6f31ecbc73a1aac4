import schema03 from '../schemas/a2a-0.3.0.js';
import published03 from '../schemas/a2a-0.3.0.published.js';
import { validators as compiled } from '../compiled/validators-0.3.js';
import { definitions as compiledPublishedDefinitions, validators as compiledPublished } from '../compiled/published-0.3.js';
import { compiledFirst, publishedValidators, validatorOf, type Validator } from '../compile.js';
import type {
  AgentCard,
  DeleteTaskPushNotificationConfigParams,
  GetTaskPushNotificationConfigParams,
  MessageSendParams,
  TaskIdParams,
  TaskPushNotificationConfig,
  TaskQueryParams,
} from './types.js';

/** The project's A2A 0.3 JSON Schema: the published one plus the fixes in SCHEMA-FIXES.md (0.3). */
export const a2aSchema03: Readonly<Record<string, unknown>> = schema03;

// Compiled at build time (scripts/generate-validators.mjs), as the 0.1.0 ones.
const compile = <T>(definition: keyof ReturnType<typeof compiled>): Validator<T> => validatorOf<T>(() => compiled()[definition]);

/** A 0.3 agent card (the project schema adds nothing to the published card). */
export const validateAgentCard03 = compile<AgentCard>('AgentCard');
/** Parameters of `message/send` and `message/stream`. */
export const validateMessageSendParams = compile<MessageSendParams>('MessageSendParams');
/** Parameters of `tasks/get`. */
export const validateTaskQueryParams = compile<TaskQueryParams>('TaskQueryParams');
/** Parameters of `tasks/cancel`, `tasks/resubscribe` and `tasks/pushNotificationConfig/list`. */
export const validateTaskIdParams = compile<TaskIdParams>('TaskIdParams');
/** Parameters of `tasks/pushNotificationConfig/set`. */
export const validateTaskPushNotificationConfig = compile<TaskPushNotificationConfig>('TaskPushNotificationConfig');
export const validateGetTaskPushNotificationConfigParams = compile<GetTaskPushNotificationConfigParams>(
  'GetTaskPushNotificationConfigParams',
);
export const validateDeleteTaskPushNotificationConfigParams = compile<DeleteTaskPushNotificationConfigParams>(
  'DeleteTaskPushNotificationConfigParams',
);

const publishedValidator = publishedValidators(published03, 'definitions');

/** The published A2A 0.3.0 schema, unmodified: what the kit sends over 0.3 must pass it. */
export function publishedSchema03(): Readonly<Record<string, unknown>> {
  return published03();
}

/** Compiled at build time for the definitions a client checks every answer with, else on first use. */
const publishedValidatorOf = compiledFirst(compiledPublishedDefinitions, compiledPublished, publishedValidator);

/**
 * A validator for one definition of the published 0.3.0 schema (`SendMessageResponse`,
 * `SendStreamingMessageResponse`, `AgentCard`, ...); every issue reported. Compiled at build time
 * for those a client checks every answer with, else compiled on first use.
 */
export function publishedSchemaValidator03(definition: string): Validator<unknown> {
  return publishedValidatorOf(definition);
}
