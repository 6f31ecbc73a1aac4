// The echo agent on Node's own HTTP server, without a framework: `a2aNodeHandler` is the listener.
//   node dist/runtimes/node.js
import { createServer } from 'node:http';
import { a2aNodeHandler } from 'a2a-express/node';
import { handler, hostname, listening, options, port, stopOnSigterm } from './from-env.js';

const agent = a2aNodeHandler(handler, options);
const server = createServer(agent);
server.listen(port, hostname, () => listening('node:http', (server.address() as { port: number }).port));
stopOnSigterm(agent, () => server.closeAllConnections());
