// A method of a version's wire, as a translation onto the core's operations: its params are
// checked, put into the operation they mean (operations.ts), and the core's answer is put back
// into the version's words. A method holds no logic of its own beyond what its wire forces.
import type { Validator } from 'a2a-types/model';
import type { OperationResults } from './agent-operations.js';
import type { CallView } from './call.js';
import type { Operation, OperationName } from './operations.js';
import type { TurnRules } from './operations.js';
import type { BindingName } from '../telemetry/metrics.js';

interface MethodBase<P> {
  /**
   * The operation the method performs: its capability is checked before the params (a method of
   * a disabled capability refuses every call), and its name labels the call's metrics.
   */
  readonly operation: OperationName;
  readonly validateParams: Validator<P>;
  /**
   * Where the params hold ids (JSON Pointers; `*` for every item of an array), each held to the
   * kit's id rules once the params are valid: at most `MAX_ID_LENGTH` characters, well-formed
   * Unicode. Default `['/id']`.
   */
  readonly idPaths?: readonly string[];
  /**
   * The task the call is about, read from its params before they are checked (so: anything),
   * for its log line, metrics and span. Default `params.id`; see {@link taskIdAt}.
   */
  readonly taskIdOf?: (params: unknown) => string | undefined;
  /**
   * The call as the core's operation, made once the params are valid: usually `operation` itself,
   * or another where the version's method means one (0.1.0's set with a null config deletes).
   * Throws an A2AError for params the version's schema lets through but the core cannot take.
   */
  toOperation(params: P): Operation;
  /** How the version continues tasks, for a send (see `TurnRules`). Default 1.0's. */
  readonly turnRules?: TurnRules;
  /** How the version shows what the core renders as it goes (streams, pages of tasks). */
  view?(params: P): CallView;
  /**
   * The bindings that carry the method; over any other it is not there (-32601). Default: every
   * binding of the version. 0.3's `tasks/list` is HTTP+JSON's alone: 0.3 has no JSON-RPC method for it.
   */
  readonly bindings?: readonly BindingName[];
}

/** A method answered with one result. */
export interface UnaryMethod<P, O extends OperationName = OperationName> extends MethodBase<P> {
  readonly kind: 'unary';
  /** The core's answer in the version's words. */
  answer(result: OperationResults[O], params: P): unknown;
}

/** A method answered with a stream of events, shown through its `view`. */
export interface StreamingMethod<P> extends MethodBase<P> {
  readonly kind: 'streaming';
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds methods of every params type; each checks its own.
export type Method = UnaryMethod<any, any> | StreamingMethod<any>;

/** Whether `method` is there over `binding`. */
export function carriedBy(method: Method, binding: BindingName): boolean {
  return method.bindings === undefined || method.bindings.includes(binding);
}

/** Reads the string at `path` in params that may be anything: where a method names its task. */
export function taskIdAt(...path: string[]): (params: unknown) => string | undefined {
  return (params) => {
    let at = params;
    for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
    return typeof at === 'string' ? at : undefined;
  };
}

/** An operation with its params, typed by its name. */
export function operation<O extends OperationName>(name: O, params: Extract<Operation, { name: O }>['params']): Operation {
  return { name, params } as Operation;
}
