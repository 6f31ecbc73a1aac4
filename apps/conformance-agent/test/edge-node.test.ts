// The conformance agent on Node's own HTTP server (a2aNodeHandler): the same suites as on Express
// (conformance-suite.ts), unchanged: the 0.3 scenarios with the official SDK's client, the 0.1.0 mapping.
import { conformanceSuites } from './conformance-suite.js';

conformanceSuites('node');
