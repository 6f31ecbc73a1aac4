// The Express side of a2a-push-receiver: a handler to mount on a webhook URL. A subpath of its
// own, so that only apps that use it need Express (and its types).
import type { Request, RequestHandler } from 'express';
import {
  createPushNotificationVerifier,
  PushVerificationError,
  type PushNotificationPayload,
  type PushVerifierOptions,
  type VerifiedNotification,
} from './index.js';

export interface ReceiverOptions<P = PushNotificationPayload> extends PushVerifierOptions<P> {
  /** Called with each verified notification; the sender gets 204 once it resolves. */
  onNotification: (notification: VerifiedNotification<P>, req: Request) => void | Promise<void>;
  /** Called with each refused one (for logging); the sender gets 401. */
  onRejected?: (error: PushVerificationError, req: Request) => void;
  /** Largest body read, bytes. Default 1 MiB. */
  maxBodyBytes?: number;
}

/**
 * An Express handler for a webhook URL: answers the agent's ownership check
 * (`GET ?validationToken=…` echoes the token) and verifies every POSTed notification (204 when
 * accepted, 401 when refused, 413 when too large). Reads the raw body itself: mount it before
 * any body parser, or on its own path.
 */
export function pushNotificationReceiver<P = PushNotificationPayload>(options: ReceiverOptions<P>): RequestHandler {
  const verifier = createPushNotificationVerifier<P>(options);
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  return (req, res, next) => {
    if (req.method === 'GET' && typeof req.query.validationToken === 'string') {
      res.type('text/plain').send(req.query.validationToken);
      return;
    }
    if (req.method !== 'POST') return next();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('error', next);
    req.on('end', () => {
      if (size > limit) return void res.status(413).end();
      verifier
        .verify({ headers: req.headers, body: Buffer.concat(chunks) })
        .then(async (notification) => {
          await options.onNotification(notification, req);
          res.status(204).end();
        })
        .catch((error: unknown) => {
          if (!(error instanceof PushVerificationError)) return next(error);
          options.onRejected?.(error, req);
          res.status(401).json({ error: error.reason });
        });
    });
  };
}
