// The echo agent on Node's own HTTP server (a2aNodeHandler): its end-to-end tests and the official SDK
// clients' suites, unchanged (each written once, run on every server the agent runs on).
import { sdkClientSuites } from '../../../test/sdk-clients-suite.js';
import { echoAgentSuite } from './echo-suite.js';

echoAgentSuite('node');
sdkClientSuites('node');
