// The echo agent on Bun: `Bun.serve` takes the fetch handler as it is (and passes its server,
// where the agent reads the client's address).
//   bun dist/runtimes/bun.js        (or bun src/runtimes/bun.ts)
import { a2aFetchHandler } from 'a2a-express/fetch';
import { handler, hostname, listening, options, port, stopOnSigterm } from './from-env.js';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch: (request: Request, server: unknown) => Promise<Response> }): { port: number };
};

const agent = a2aFetchHandler(handler, options);
const server = Bun.serve({ port, hostname, fetch: agent });
listening('bun', server.port);
stopOnSigterm(agent);
