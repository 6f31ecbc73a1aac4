// A push delivery goes to a URL the client chose: it crosses a trust boundary. It carries the
// trace on (traceparent) and nothing else of the caller's trace headers: no tracestate, no
// baggage, unless the operator names baggage keys to pass on.
import express from 'express';
import { generateKeyPairSync } from 'node:crypto';
import { serverPool } from 'a2a-testing';
import { startInMemoryTracing } from 'a2a-testing/tracing';
import { completed, working, type PushNotificationOptions } from '../src/index.js';
import { appWith, eventually, message10 } from './helpers.js';

const tracing = startInMemoryTracing();
const { serve, closeAll } = serverPool();
afterAll(async () => {
  await closeAll();
  await tracing.stop();
});

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'trace-test' };

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerHeaders = {
  traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
  tracestate: 'gateway=internal-route-7',
  baggage: 'user.id=alice%40example.com,tenant=acme,session=s-123',
};

/** Sends a 1.0 message with a webhook and the caller's trace headers; the headers the webhook received. */
async function deliveredHeaders(push: PushNotificationOptions): Promise<Record<string, string | string[] | undefined>> {
  const received: Record<string, string | string[] | undefined>[] = [];
  const hookApp = express();
  hookApp.post('/hook', express.raw({ type: () => true }), (req, res) => {
    received.push(req.headers);
    res.status(204).end();
  });
  const hook = await serve(hookApp);
  const { app } = appWith(
    async function* () {
      yield working('on it');
      yield completed('done');
    },
    { pushNotifications: { signingKey, allowlist: ['127.0.0.1'], ...push } },
  );
  const agent = await serve(app);
  const response = await fetch(`${agent.url}/v1/message:send`, {
    method: 'POST',
    headers: { 'a2a-version': '1.0', 'content-type': 'application/json', ...callerHeaders },
    body: JSON.stringify({
      message: message10('go'),
      configuration: { taskPushNotificationConfig: { url: `${hook.url}/hook`, token: 't' } },
    }),
  });
  expect(response.status).toBe(200);
  return eventually(async () => received[0]);
}

test('a delivery carries traceparent (the caller’s trace), and neither the caller’s tracestate nor its baggage', async () => {
  const headers = await deliveredHeaders({});
  expect(headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
  expect(headers).not.toHaveProperty('tracestate');
  expect(headers).not.toHaveProperty('baggage');
});

test('forwardBaggage passes on the named baggage keys only', async () => {
  const headers = await deliveredHeaders({ forwardBaggage: ['tenant', 'absent'] });
  expect(headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-`));
  expect(headers.baggage).toBe('tenant=acme');
  expect(headers).not.toHaveProperty('tracestate');
});

test('forwardBaggage must be a list of keys', () => {
  expect(() => appWith(async function* () {}, { pushNotifications: { forwardBaggage: [''] } })).toThrow(/forwardBaggage/);
});
