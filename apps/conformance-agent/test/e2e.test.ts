// The conformance agent on Express, its production server (server.ts): the suites of
// conformance-suite.ts, which its other servers run too (edge-*.test.ts).
import { conformanceSuites } from './conformance-suite.js';

conformanceSuites('express');
