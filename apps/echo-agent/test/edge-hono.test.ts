// The echo agent on the fetch handler (a2aFetchHandler) on Hono (@hono/node-server): its end-to-end tests and the official SDK
// clients' suites, unchanged (each written once, run on every server the agent runs on).
import { sdkClientSuites } from '../../../test/sdk-clients-suite.js';
import { echoAgentSuite } from './echo-suite.js';

echoAgentSuite('hono');
sdkClientSuites('hono');
