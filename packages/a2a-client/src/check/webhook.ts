// The checker's own webhook, for the push checks: an HTTP server on loopback that keeps what it
// receives (64 notifications at most, 64 KB each) and answers an ownership check
// (`?validationToken=`) by echoing the token, as a receiver does. Started when a check first
// needs it, closed when the checks end.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Webhook } from './checks.js';

const MAX_KEPT = 64;
const MAX_BYTES = 64 * 1024;

export class CheckWebhook implements Webhook {
  url = '';
  private readonly received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  private waiting: (() => void) | undefined;
  private server: Server | undefined;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const token = new URL(req.url ?? '/', 'http://localhost').searchParams.get('validationToken');
      if (req.method === 'GET' && token) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(token);
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        if (body.length < MAX_BYTES) body += chunk;
      });
      req.on('end', () => {
        if (this.received.length < MAX_KEPT) this.received.push({ headers: req.headers, body });
        this.waiting?.();
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/a2a-check-webhook`;
    return this;
  }

  async next(ms: number) {
    if (this.received.length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = undefined;
    }
    return this.received.shift();
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}
