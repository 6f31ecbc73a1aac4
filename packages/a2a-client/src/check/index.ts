// a2a-client/check: `a2a check` from code. The same checks and report as the command line.
export { CHECKS, type Binding, type CheckDefinition, type Level } from './checks.js';
export type { Exchange, SseEvent } from './prober.js';
export { junitReport, textReport } from './report.js';
export { checkAgent, plan, type CheckOptions, type CheckReport, type CheckResult, type Outcome } from './run.js';
