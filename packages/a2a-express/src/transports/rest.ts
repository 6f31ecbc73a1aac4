// An HTTP+JSON binding over the same method runner as JSON-RPC: each route names a method of the
// version's table and builds its params from the path, the query and the body, so both bindings
// run the same methods, checks and logs. What differs is only on the wire: the HTTP status says
// how a call went, an answer is the method's result alone, an error the version's error body,
// and a stream's events go bare (no JSON-RPC envelope).
import { A2AError, ErrorCode } from 'a2a-types';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { authenticate, type AuthOptions, type Principal } from '../core/auth.js';
import type { RestBinding, RestRoute } from '../core/protocol-version.js';
import { createBodyReader, TransportError } from './body.js';
import { serializeAnswer, writeEventStream, type AnswerLimits } from './event-stream.js';
import { requestedVersion } from './http.js';
import type { MethodRunner, RequestContext } from './method-runner.js';
import { performance } from 'node:perf_hooks';
import type { A2AMetrics } from '../telemetry/metrics.js';
import { A2A_ATTRIBUTES, traceRequest, type Span } from '../telemetry/tracing.js';

interface RestEndpointSettings extends AnswerLimits {
  readonly binding: RestBinding;
  readonly runner: MethodRunner;
  readonly logger: Logger;
  readonly auth: AuthOptions | undefined;
  readonly bodyLimit: number | string;
  readonly maxJsonDepth: number;
  /** How the version words an error the transport finds itself (a refused credential, a bad body). */
  readonly wireError: (error: A2AError) => A2AError;
  /** The protocol version the binding speaks, for its spans and metrics. */
  readonly protocol: string;
  readonly refusesVersion?: (requested: string | undefined) => A2AError | undefined;
  readonly contentTypeError?: (reason: string) => A2AError;
  /** The version's extended card for this request and caller; absent when the agent has none. */
  readonly extendedCardFor?: (req: Request, principal: Principal) => Promise<unknown>;
  /** Where the interface is below the mount, for its server spans' `http.route`. */
  readonly route: string;
  readonly metrics?: A2AMetrics;
}

/** Serves the binding's routes, below the interface's path. */
export function createRestEndpoint(settings: RestEndpointSettings): RequestHandler {
  const { binding, logger } = settings;
  const readBody = createBodyReader(settings.bodyLimit, settings.maxJsonDepth, { mediaTypes: binding.mediaTypes, empty: () => ({}) });

  const spanAttributes = { [A2A_ATTRIBUTES.protocolVersion]: settings.protocol, [A2A_ATTRIBUTES.binding]: 'rest' };
  const { metrics, protocol } = settings;

  return (req, res) =>
    traceRequest(req, res, settings.route, spanAttributes, (span) => {
      const started = performance.now();
      const found = routeOf(binding.routes, req);
      // Everything below the interface is the binding's: a path that is none of its routes (a
      // tenant's, say, which the card does not declare) is answered in its words, not the host's.
      if (found === undefined) return refuse(req, res, started, A2AError.methodNotFound(`${req.method} ${req.path}`), 404);
      if (found === 'bad-path')
        return refuse(req, res, started, A2AError.invalidRequest({ reason: 'the path is not valid percent-encoding' }), 400);
      if (found === 'other-verb') {
        res.setHeader('Allow', allowedVerbs(binding.routes, req.path).join(', '));
        return refuse(req, res, started, A2AError.methodNotFound(`${req.method} ${req.path}`), 405);
      }
      void handle(req, res, found.route, found.pathParams, span, started).catch((error: unknown) => {
        logger.error({ err: error }, 'unexpected error in the HTTP+JSON endpoint');
        if (!res.headersSent) sendError(req, res, A2AError.internalError());
        else res.end();
      });
    });

  /** A call refused before it reached the dispatcher (route, credentials, body, version): counted as one. */
  function refuse(req: Request, res: Response, started: number, error: A2AError, status?: number): void {
    metrics?.callEnded(protocol, 'rest', 'other', settings.wireError(error).code, (performance.now() - started) / 1000);
    sendError(req, res, error, status);
  }

  async function handle(req: Request, res: Response, route: RestRoute, pathParams: string[], span: Span, started: number): Promise<void> {
    const auth = settings.auth && (await authenticate(req, settings.auth));
    if (auth && !auth.ok) {
      logger.info({ outcome: 'error', code: ErrorCode.AuthenticationRequired, reason: auth.reason }, 'a2a call refused');
      res.setHeader('WWW-Authenticate', auth.challenges);
      return refuse(req, res, started, A2AError.authenticationRequired(auth.reason), 401);
    }
    const versionRefusal = settings.refusesVersion?.(requestedVersion(req));
    if (versionRefusal) {
      logger.info({ outcome: 'error', code: versionRefusal.code, version: requestedVersion(req) }, 'a2a call refused');
      return refuse(req, res, started, versionRefusal);
    }
    let body: Record<string, unknown> = {};
    if (route.hasBody) {
      try {
        const read = await readBody(req, res);
        if (read === null || typeof read !== 'object' || Array.isArray(read)) {
          return refuse(req, res, started, A2AError.invalidRequest({ reason: 'the body must be a JSON object' }), 400);
        }
        body = read as Record<string, unknown>;
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        if (error.status === 413) res.setHeader('Connection', 'close');
        const reason = (error.error.data as { reason?: string } | undefined)?.reason ?? 'unsupported Content-Type';
        const refusal = error.status === 415 && settings.contentTypeError ? settings.contentTypeError(reason) : error.error;
        logger.info({ outcome: 'error', code: refusal.code, status: error.status }, 'a2a call refused');
        return refuse(req, res, started, refusal, error.status === 200 ? 400 : error.status);
      }
    }
    const principal = auth?.principal;
    const context: RequestContext = {
      principal,
      headers: req.headers,
      lastEventId: req.get('last-event-id'),
      extendedCard: settings.extendedCardFor && principal && (() => settings.extendedCardFor!(req, principal)),
      // Read when a stream opens: Express derives it per read (trust proxy), and most calls open none.
      clientAddress: () => req.ip,
      binding: 'rest',
      span,
    };
    const params = route.params(pathParams, req.query as Record<string, unknown>, body);
    const outcome = await settings.runner.run(route.method, params, context);
    switch (outcome.kind) {
      case 'stream':
        return writeEventStream(
          req,
          res,
          outcome.events,
          settings,
          {
            event: (text) => text,
            failure: (error) => ({ data: JSON.stringify(binding.errorAnswer(settings.wireError(error).toJSON()).body), type: 'error' }),
          },
          outcome.finished,
        );
      case 'error':
        return sendErrorObject(req, res, outcome.error.toJSON());
      case 'result': {
        const serialized = serializeAnswer(() => outcome.result, settings);
        if (!serialized.ok) return sendError(req, res, serialized.error);
        sendText(req, res, 200, serialized.text);
      }
    }
  }

  /** An error in the version's words: its status, or the one given (a transport's own). */
  function sendError(req: Request, res: Response, error: A2AError, status?: number): void {
    sendErrorObject(req, res, settings.wireError(error).toJSON(), status);
  }

  function sendErrorObject(req: Request, res: Response, error: { code: number; message: string; data?: unknown }, status?: number): void {
    const answer = binding.errorAnswer(error);
    const body = status === undefined ? answer.body : withCode(answer.body, status);
    sendText(req, res, status ?? answer.status, JSON.stringify(body));
  }

  /** JSON, labelled with the binding's own media type to a client that asks for it. */
  function sendText(req: Request, res: Response, status: number, text: string): void {
    const own = binding.mediaTypes[0]!;
    res.statusCode = status;
    res.setHeader('Content-Type', req.accepts(['application/json', own]) === own ? own : 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  }
}

/** An error body whose `error.code` is the HTTP status sent (a status the transport chose). */
function withCode(body: unknown, status: number): unknown {
  const error = (body as { error?: Record<string, unknown> }).error;
  return error ? { ...(body as object), error: { ...error, code: status } } : body;
}

/** The route of the request and its path parameters; 'other-verb' for a path served with other verbs. */
function routeOf(
  routes: readonly RestRoute[],
  req: Request,
): { route: RestRoute; pathParams: string[] } | 'other-verb' | 'bad-path' | undefined {
  let pathMatched = false;
  for (const route of routes) {
    const match = route.path.exec(req.path);
    if (!match) continue;
    pathMatched = true;
    if (route.verb !== req.method) continue;
    try {
      return { route, pathParams: match.slice(1).map((segment) => decodeURIComponent(segment)) };
    } catch {
      return 'bad-path';
    }
  }
  return pathMatched ? 'other-verb' : undefined;
}

function allowedVerbs(routes: readonly RestRoute[], path: string): string[] {
  return [...new Set(routes.filter((route) => route.path.test(path)).map((route) => route.verb))];
}
