// Retries where they are safe: a read (the card, a task, a list of tasks, a push config) asked
// again after a connection error or a 5xx / gRPC UNAVAILABLE, a few times with a growing wait;
// a SendMessage only when the caller opts in, and then with the same message (its `messageId`)
// and an `Idempotency-Key` equal to it, so that an agent which deduplicates sends runs it once.
// Nothing here may need Node: the main entry bundles it.
import { NetworkError } from './errors.js';
import { answerOf, type InterceptedCall, type Interceptor } from './interceptors.js';

export interface RetryOptions {
  /** Attempts after the first. Default 2; 0 turns retries off (so does `retry: false`). */
  retries?: number;
  /** The wait before the first retry, ms, doubled for each after it. Default 200. */
  backoffMs?: number;
  /** The longest wait between attempts, ms. Default 2,000. */
  maxBackoffMs?: number;
  /**
   * Retry SendMessage (0.3 `message/send`, 1.0 `SendMessage` on every binding) too, with the same
   * `messageId` and an `Idempotency-Key` header (gRPC metadata `idempotency-key`) equal to it.
   * Only safe against an agent that deduplicates sends by either. Default false. 0.1.0's
   * `tasks/send` has no message id and is never retried.
   */
  sendMessage?: boolean;
}

/** The calls that change nothing, asked again safely. */
const READS: ReadonlySet<string> = new Set([
  'agent card',
  'GetTask',
  'ListTasks',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'GetExtendedAgentCard',
  'tasks/get',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotification/get',
  'agent/getAuthenticatedExtendedCard',
]);
const SENDS: ReadonlySet<string> = new Set(['SendMessage', 'message/send']);
const GRPC_UNAVAILABLE = 14;

/**
 * Waits `ms`, or less when `signal` aborts: then it rejects with the signal's reason, as fetch
 * does, so a caller that gives up during a backoff is answered at once, not after the wait.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

function messageIdOf(call: InterceptedCall): string | undefined {
  const id = (call.params as { message?: { messageId?: unknown } } | undefined)?.message?.messageId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The retrying interceptor; undefined when retries are off. */
export function retryInterceptor(options: RetryOptions | boolean | undefined): Interceptor | undefined {
  if (options === false) return undefined;
  const { retries = 2, backoffMs = 200, maxBackoffMs = 2_000, sendMessage = false } = options === true ? {} : (options ?? {});
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError(`retry.retries must be a whole number of 0 or more, got ${retries}`);
  if (retries === 0) return undefined;
  const retried = (call: InterceptedCall) =>
    !call.streaming && (READS.has(call.method) || (sendMessage && SENDS.has(call.method) && messageIdOf(call) !== undefined));
  return {
    before(call) {
      if (sendMessage && SENDS.has(call.method)) {
        const id = messageIdOf(call);
        if (id !== undefined) call.headers[call.binding === 'GRPC' ? 'idempotency-key' : 'Idempotency-Key'] = id;
      }
    },
    async around(call, send) {
      if (!retried(call)) return send();
      for (let attempt = 0; ; attempt++) {
        try {
          return await send();
        } catch (error) {
          const answer = answerOf(call);
          const status = answer?.status;
          const transient =
            error instanceof NetworkError ||
            (call.binding === 'GRPC' ? status === GRPC_UNAVAILABLE : status !== undefined && status >= 500);
          if (!transient || attempt >= retries || call.signal?.aborted) throw error;
          if (answer) delete answer.status;
          await pause(Math.min(maxBackoffMs, backoffMs * 2 ** attempt), call.signal);
        }
      }
    },
  };
}
