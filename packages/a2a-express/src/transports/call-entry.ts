// The way into a call, the same whichever binding carries it: JSON-RPC, HTTP+JSON and gRPC each
// hand their request's headers here before they read anything else, and each refusal made on the
// way in (here, or by the binding while it reads the request) is logged, counted and traced here,
// the same way for all three. What is left to each binding is only its wire: where the headers
// and the body come from, and how a refusal is written (an HTTP status and the version's error
// body, or a gRPC status and its details).
//
// The steps, in order: a draining agent refuses every new call; then the credentials; then the
// protocol version the client asks for; then the request itself (its body or message, read by
// the binding). What comes after, once the method is known (its capability, params, tenant,
// required extensions, the authorization of the caller), is the method runner's, which is as
// shared and logs each call with the same line, metric and span.
import { A2AError } from 'a2a-types';
import { authenticate, type AuthOptions, type AuthRequest, type Principal } from '../core/auth.js';
import type { BindingName } from '../telemetry/metrics.js';
import type { Span } from '../telemetry/tracing.js';
import type { MethodRunner } from './method-runner.js';

/** Where on the way in a call was refused: its log line's `refused`. */
export type RefusalStep = 'draining' | 'credentials' | 'version' | 'request';

/** A call refused on its way in, before its method ran. */
export interface Refusal {
  readonly error: A2AError;
  readonly step: RefusalStep;
  /** The schemes a client may authenticate with: HTTP's `WWW-Authenticate` on a 401. */
  readonly challenges?: readonly string[];
  /**
   * HTTP's status for it, where the binding does not read it from the reason: credentials
   * refused (401, with the challenges), the agent draining (503, so that a load balancer tries
   * another replica), a body too large (413) or of a media type not taken (415), a verb the path
   * does not take (405).
   */
  readonly httpStatus?: number;
  /**
   * The request is larger than the agent takes: over HTTP a 413 (`httpStatus`), over gRPC
   * RESOURCE_EXHAUSTED, the status gRPC gives a message past its limit.
   */
  readonly tooLarge?: boolean;
  /** What else its log line says (the reason credentials were refused, the version asked for). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A call let in: who is calling, when the agent authenticates. */
export interface Admitted {
  readonly principal: Principal | undefined;
}

/** What a refusal is accounted to: the binding, the request's server span, and when the request came. */
export interface RefusedCall {
  readonly binding: BindingName;
  readonly span?: Span;
  /** `performance.now()` when the binding took the request, for the call's duration. */
  readonly started: number;
  /** Who was calling, when the credentials were accepted before the refusal. */
  readonly principal?: Principal;
  readonly headers: AuthRequest['headers'];
}

export interface CallEntrySettings {
  /** The version's method runner: a refusal is logged and counted as its calls are. */
  readonly runner: MethodRunner;
  readonly auth: AuthOptions | undefined;
  /** See `VersionEndpoint.refusesVersion`. */
  readonly refusesVersion?: (requested: string | undefined) => A2AError | undefined;
  /** Whether the agent drains: a new call is refused, so that the client tries another replica. */
  readonly isDraining: () => boolean;
}

/** The way into a version's calls, shared by its bindings. */
export class CallEntry {
  constructor(private readonly settings: CallEntrySettings) {}

  /**
   * Lets a call in, or says why not, from what every binding has before the body: the request's
   * headers (HTTP's, or gRPC's metadata). `request` is what the authentication strategies read:
   * the host's own request object where there is one. `requestedVersion` is the `A2A-Version`
   * the binding read (a header, a query parameter, metadata). A promise only when the agent
   * authenticates: most calls of an agent without credentials take no turn of the event loop here.
   */
  admit(request: AuthRequest, requestedVersion: string | undefined): Admission | Promise<Admission> {
    const { auth, isDraining } = this.settings;
    if (isDraining()) return DRAINING;
    if (!auth) return this.versionChecked(ANONYMOUS, requestedVersion);
    return authenticate(request, auth).then((outcome): Admission => {
      if (outcome.ok) return this.versionChecked({ principal: outcome.principal }, requestedVersion);
      return {
        error: A2AError.authenticationRequired(outcome.reason),
        step: 'credentials',
        challenges: outcome.challenges,
        httpStatus: 401,
        details: { reason: outcome.reason },
      };
    });
  }

  private versionChecked(admitted: Admitted, requestedVersion: string | undefined): Admission {
    const versionRefusal = this.settings.refusesVersion?.(requestedVersion);
    return versionRefusal ? { error: versionRefusal, step: 'version', details: { version: requestedVersion } } : admitted;
  }

  /**
   * Accounts for a refused call: one log line (`a2a call refused`, with the code its version
   * sends and the step that refused it), one count in the calls metric (`method="other"`), and
   * the outcome on the request's server span. The binding writes the refusal itself.
   */
  refused(refusal: Refusal, call: RefusedCall): void {
    this.settings.runner.refuse(
      refusal.error,
      { principal: call.principal, headers: call.headers, lastEventId: undefined, binding: call.binding, span: call.span },
      { started: call.started, refused: refusal.step, details: refusal.details },
    );
  }
}

/** The version a client names (a header, a query parameter, metadata), trimmed; undefined when it names none. */
export function versionNamed(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** What the entry says of a call: let in, or refused. */
export type Admission = Admitted | Refusal;

/** Whether the entry refused the call. */
export function isRefusal(outcome: Admission): outcome is Refusal {
  return 'error' in outcome;
}

/** The refusal of a request the binding cannot read as a call (its body, its message, its path). */
export function requestRefusal(error: A2AError, how: Pick<Refusal, 'httpStatus' | 'tooLarge' | 'details'> = {}): Refusal {
  return { error, step: 'request', ...how };
}

const ANONYMOUS: Admitted = { principal: undefined };

const DRAINING: Refusal = {
  get error() {
    return A2AError.resourceUnavailable('the agent is shutting down');
  },
  step: 'draining',
  httpStatus: 503,
};
