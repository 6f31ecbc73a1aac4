// Starts the ITK agent. Configuration by environment variables, or by the arguments the kit
// gives the agents it starts (`--httpPort N --grpcPort N`):
//   PORT (default 41250), A2A_GRPC_PORT (default 50060), HOST (default 127.0.0.1),
//   A2A_PUSH_ALLOWLIST (where webhooks may be; default 127.0.0.1, where the kit's notification
//   server listens), ITK_HOLD_MS (how long a held task waits to be canceled, default 10000),
//   LOG_LEVEL (default info).
import { parseArgs } from 'node:util';
import express from 'express';
import { pino } from 'pino';
import { serveAgent } from 'a2a-express';
import { exitOnBadConfiguration, integerFromEnv, pushNotificationOptionsFromEnv } from 'a2a-express/env';
import { grpcTransport } from 'a2a-client/grpc';
import { itkRouter, withKitEndpoint } from './agent.js';

const agent = { name: 'itk-agent', port: 41250, grpcPort: 50060 } as const;

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: agent.name });
try {
  const { values } = parseArgs({ options: { httpPort: { type: 'string' }, grpcPort: { type: 'string' } }, strict: true });
  const port = integerFromEnv('PORT', agent.port, { PORT: values.httpPort ?? process.env.PORT });
  const grpcPort = integerFromEnv('A2A_GRPC_PORT', agent.grpcPort, { A2A_GRPC_PORT: values.grpcPort ?? process.env.A2A_GRPC_PORT });
  const push = pushNotificationOptionsFromEnv();
  const router = itkRouter({
    logger,
    holdMs: integerFromEnv('ITK_HOLD_MS', 10_000),
    grpc: grpcTransport(),
    pushNotifications: { ...push, allowlist: push.allowlist ?? ['127.0.0.1'] },
  });
  serveAgent(withKitEndpoint(express().disable('x-powered-by')).use(router), {
    name: agent.name,
    port,
    host: process.env.HOST || '127.0.0.1',
    logger,
    router,
    grpc: { port: grpcPort },
  });
} catch (error) {
  // As the other samples: one line naming the variable or argument, no stack.
  exitOnBadConfiguration(logger, agent.name, error);
}
