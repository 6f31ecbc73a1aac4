// One call of a shared store to its database (a Redis command, a PostgreSQL operation): a client
// span under the call that caused it, timed for the store's metrics, and an error that says the
// database is away made -32011 for the client. Both stores run every call through here.
import { performance } from 'node:perf_hooks';
import { A2AError } from 'a2a-types/model';
import { failSpan, SpanKind, startSpanUnderCall, withSpan } from '../telemetry/tracing.js';

/**
 * What an error of a call is: `own`, a refusal of the store's own (passed on, not a failure of
 * the database); `unavailable`, the database away (-32011 for the client); `other`, a failure
 * passed on as it is.
 */
export type CallError = 'own' | 'unavailable' | 'other';

export async function databaseCall<T>(
  database: { system: 'redis' | 'postgresql'; shownAs: string },
  name: string,
  run: () => Promise<T>,
  { record, classify }: { record?: (seconds: number, failed: boolean) => void; classify: (error: unknown) => CallError },
): Promise<T> {
  const span = startSpanUnderCall(
    `${database.system} ${name}`,
    { 'db.system.name': database.system, 'db.operation.name': name },
    SpanKind.CLIENT,
  );
  const started = record ? performance.now() : 0;
  let failed = false;
  try {
    return span ? await withSpan(span, run) : await run();
  } catch (error) {
    const kind = classify(error);
    if (kind === 'own') throw error;
    failed = true;
    if (span) failSpan(span, (error as Error).message);
    if (kind === 'other') throw error;
    throw A2AError.resourceUnavailable(`the task store (${database.shownAs}) is unavailable: ${(error as Error).message}`);
  } finally {
    record?.((performance.now() - started) / 1000, failed);
    span?.end();
  }
}
