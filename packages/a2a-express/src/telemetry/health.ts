// Liveness and readiness, as an orchestrator or a load balancer asks: live while the process
// answers at all; ready while it should be sent new calls, which it should not while it drains
// or while its task store cannot be reached (every call would fail with -32011).
import type { Logger } from 'pino';

/**
 * What the health and metrics endpoints write to: a Node `ServerResponse` (Express's too), as far
 * as they use one. A structural type, so that this module, which the fetch handler loads too,
 * imports nothing of node:http.
 */
export interface NodeStyleResponse {
  statusCode: number;
  setHeader(name: string, value: string | number): unknown;
  end(body?: string): unknown;
}

/** A Node-style handler, `(req, res) => void`, for Express or node:http; it reads nothing of the request. */
export type NodeStyleHandler = (req: unknown, res: NodeStyleResponse) => void;

/** What readiness found. */
export interface ReadinessReport {
  ready: boolean;
  /** Why not, in words an operator acts on; empty when ready. */
  reasons: string[];
}

/** The health endpoints of one router: mount them where the orchestrator asks (`/livez`, `/readyz`). */
export interface HealthEndpoints {
  /** 200 `{"status":"live"}` while the process answers. */
  readonly live: NodeStyleHandler;
  /** 200 `{"status":"ready"}`, or 503 `{"status":"not ready","reasons":[...]}`. */
  readonly ready: NodeStyleHandler;
  /** The readiness check itself. */
  check(): Promise<ReadinessReport>;
}

interface HealthSources {
  logger: Logger;
  isDraining(): boolean;
  /** Resolves when the store answers; rejects saying why not. Absent: a store that is always there. */
  pingStore?: () => Promise<void>;
  /**
   * Why the agent cannot get its work done although the store answers (a front end with no live
   * worker), in words an operator acts on; undefined when it can. Absent: nothing to check.
   */
  checkWork?: () => Promise<string | undefined>;
}

export function healthEndpoints({ logger, isDraining, pingStore, checkWork }: HealthSources): HealthEndpoints {
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
    // Asked only of a store that answers: otherwise the reason above says it all.
    if (checkWork && !storeWasDown) {
      const why = await checkWork().catch(() => undefined);
      if (why !== undefined) reasons.push(why);
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

function sendHealth(res: NodeStyleResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  // An answer of a moment ago says nothing of now.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', new TextEncoder().encode(text).length);
  res.end(text);
}
