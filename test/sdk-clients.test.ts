// The official SDK clients against the sample agents on Express (the suites: sdk-clients-suite.ts),
// and a tenant's agent reached through the card's interface.
import express from 'express';
import { ClientFactory as ClientFactory1 } from 'a2a-sdk-1/client';
import { Role, TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { serverPool } from 'a2a-testing';
import { sdkClientSuites } from './sdk-clients-suite.js';

const { serve, closeAll } = serverPool();
afterAll(() => closeAll());

sdkClientSuites('express');

test("the SDK's newest client (1.x) reaches a tenant's agent through the card's interface: its requests carry the tenant, and the task is the tenant's", async () => {
  const { a2aRouter, completed } = await import('a2a-express');
  const { pino } = await import('pino');
  const tenants: (string | undefined)[] = [];
  const router = a2aRouter(
    async function* (ctx) {
      tenants.push(ctx.call.tenant);
      yield completed('served');
    },
    { card: { name: 'Tenanted', version: '1.0.0' }, logger: pino({ level: 'silent' }), tenants: ['acme'], listTenantsInCard: true },
  );
  const server = await serve(express().use(router));
  const { url } = server;
  try {
    const client = await new ClientFactory1().createFromUrl(url);
    const sent = (await client.sendMessage({
      message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'hi' } }] },
    } as unknown as SendMessageRequest)) as unknown as { id: string; status: { state: number } };
    expect(sent.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(tenants).toEqual(['acme']);
    // The SDK client reads it back in the tenant; the default tenant does not know it.
    expect(((await client.getTask({ id: sent.id } as never)) as unknown as { id: string }).id).toBe(sent.id);
    const fromDefault = await fetch(`${url}/v1/tasks/${sent.id}`, { headers: { 'A2A-Version': '1.0' } });
    expect(fromDefault.status).toBe(404);
    expect((await fetch(`${url}/v1/acme/tasks/${sent.id}`, { headers: { 'A2A-Version': '1.0' } })).status).toBe(200);
  } finally {
    await router.close();
    await server.close();
  }
});
