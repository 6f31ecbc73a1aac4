// Liveness and readiness, as an orchestrator or a load balancer asks: live while the process
// answers at all; ready while it should be sent new calls, which it should not while it drains
// or while its task store cannot be reached (every call would fail with -32011).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/** What readiness found. */
export interface ReadinessReport {
  ready: boolean;
  /** Why not, in words an operator acts on; empty when ready. */
  reasons: string[];
}

/** The health endpoints of one router: mount them where the orchestrator asks (`/livez`, `/readyz`). */
export interface HealthEndpoints {
  /** 200 `{"status":"live"}` while the process answers. */
  readonly live: (req: IncomingMessage, res: ServerResponse) => void;
  /** 200 `{"status":"ready"}`, or 503 `{"status":"not ready","reasons":[...]}`. */
  readonly ready: (req: IncomingMessage, res: ServerResponse) => void;
  /** The readiness check itself. */
  check(): Promise<ReadinessReport>;
}

interface HealthSources {
  logger: Logger;
  isDraining(): boolean;
  /** Resolves when the store answers; rejects saying why not. Absent: a store that is always there. */
  pingStore?: () => Promise<void>;
}

export function healthEndpoints({ logger, isDraining, pingStore }: HealthSources): HealthEndpoints {
  // The store's own words (which may name internal addresses) go to the log, not to whoever
  // probes: once when it stops answering, once when it is back.
  let storeWasDown = false;
  const check = async (): Promise<ReadinessReport> => {
    const reasons: string[] = [];
    if (isDraining()) reasons.push('the agent is shutting down (draining)');
    if (pingStore) {
      try {
        await pingStore();
        if (storeWasDown) logger.info('readiness: the task store answers again');
        storeWasDown = false;
      } catch (error) {
        if (!storeWasDown) logger.warn({ reason: (error as Error).message }, 'readiness: the task store cannot be reached');
        storeWasDown = true;
        reasons.push('the task store cannot be reached');
      }
    }
    return { ready: reasons.length === 0, reasons };
  };
  return {
    check,
    live: (_req, res) => sendHealth(res, 200, { status: 'live' }),
    ready: (_req, res) => {
      check().then(
        (report) =>
          sendHealth(res, report.ready ? 200 : 503, report.ready ? { status: 'ready' } : { status: 'not ready', reasons: report.reasons }),
        () => sendHealth(res, 503, { status: 'not ready', reasons: ['the readiness check failed'] }),
      );
    },
  };
}

function sendHealth(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  // An answer of a moment ago says nothing of now.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
