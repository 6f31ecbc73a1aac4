// The echo agent on Deno: `Deno.serve` takes the fetch handler as it is (and passes `info`, where
// the agent reads the client's address).
//   deno run --allow-net --allow-env --allow-read --allow-sys --unstable-no-legacy-abort dist/runtimes/deno.js
import { a2aFetchHandler } from 'a2a-express/fetch';
import { handler, hostname, listening, options, port, stopOnSigterm } from './from-env.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen(address: { port: number }): void },
    handler: (request: Request, info: unknown) => Promise<Response>,
  ): unknown;
};

const agent = a2aFetchHandler(handler, options);
Deno.serve({ port, hostname, onListen: (address) => listening('deno', address.port) }, agent);
stopOnSigterm(agent);
