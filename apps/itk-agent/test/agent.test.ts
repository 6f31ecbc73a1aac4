// The ITK agent alone: started as the kit starts agents, entered as the kit's runner enters them
// (JSON-RPC at /jsonrpc/, 1.0 or 0.3 by the header), and a held task that no one cancels.
import { join } from 'node:path';
import express from 'express';
import { pino } from 'pino';
import { create, toBinary } from '@bufbuild/protobuf';
import { A2AClient10 } from 'a2a-client';
import { grpcTransport } from 'a2a-client/grpc';
import { collectEvents, listen, rpc, type RunningServer } from 'a2a-testing';
import { itkRouter, withKitEndpoint } from '../src/agent.js';
import { type Instruction, InstructionSchema } from '../src/gen/instruction_pb.js';

const appRoot = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

/** Answers `text`; with `holdTask`, the task is then held. */
const answer = (text: string, holdTask = false): Instruction =>
  create(InstructionSchema, { step: { case: 'returnResponse', value: { response: text, holdTask } } });
const bytesOf = (instruction: Instruction) => Buffer.from(toBinary(InstructionSchema, instruction)).toString('base64');
const part10 = (instruction: Instruction) => ({
  raw: bytesOf(instruction),
  mediaType: 'application/x-protobuf',
  filename: 'instruction.bin',
});

describe('in this process', () => {
  let server: RunningServer;
  const router = itkRouter({ logger: pino({ level: 'silent' }), holdMs: 50 });
  beforeAll(async () => {
    server = await listen(withKitEndpoint(express()).use(router));
  });
  afterAll(async () => {
    await router.close();
    await server.close();
  });

  test("the kit's entry, /jsonrpc/, takes A2A 1.0 by its header and 0.3 without one", async () => {
    const steps = create(InstructionSchema, {
      step: { case: 'steps', value: { instructions: [answer('first'), answer('second')] } },
    });
    const over10 = await rpc<{ task: { status: { state: string; message: { parts: { text: string }[] } } } }>(
      `${server.url}/jsonrpc/`,
      'SendMessage',
      { message: { role: 'ROLE_USER', messageId: crypto.randomUUID(), parts: [part10(steps)] } },
      { headers: { 'A2A-Version': '1.0' } },
    );
    expect(over10.result?.task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'first\nsecond' }] } });

    const over03 = await rpc<{ kind: string; status: { state: string; message: { parts: { text: string }[] } } }>(
      `${server.url}/jsonrpc`,
      'message/send',
      {
        message: {
          kind: 'message',
          role: 'user',
          messageId: crypto.randomUUID(),
          parts: [{ kind: 'file', file: { bytes: bytesOf(steps), mimeType: 'application/x-protobuf', name: 'instruction.bin' } }],
        },
      },
    );
    expect(over03.result).toMatchObject({
      kind: 'task',
      status: { state: 'completed', message: { parts: [{ kind: 'text', text: 'first\nsecond' }] } },
    });
  });

  test('a held task says task-finished while working, and completes when its hold ends uncanceled', async () => {
    const client = new A2AClient10(server.url);
    const events = await collectEvents(
      client.streamMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [part10(answer('held', true))] } }),
    );
    const statuses = events.flatMap(({ event }) => ('statusUpdate' in event ? [event.statusUpdate.status] : []));
    expect(statuses.map((s) => [s.state, s.message?.parts.map((p) => ('text' in p ? p.text : ''))])).toEqual([
      ['TASK_STATE_WORKING', undefined],
      ['TASK_STATE_WORKING', ['held\ntask-finished']],
      ['TASK_STATE_COMPLETED', ['held']],
    ]);
  });
});

test('started as the kit starts agents (--httpPort, --grpcPort), it serves 1.0 over gRPC too', async () => {
  const { spawnAgent } = await import('a2a-testing');
  const agent = await spawnAgent(process.execPath, [join(appRoot, 'dist/server.js'), '--httpPort', '0', '--grpcPort', '0'], {
    env: { LOG_LEVEL: 'info' },
  });
  try {
    const client = new A2AClient10(agent.url, { preferredBinding: 'GRPC', grpc: grpcTransport() });
    try {
      expect((await client.agentInterface()).protocolBinding).toBe('GRPC');
      const sent = await client.sendMessage({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [part10(answer('over gRPC'))] },
      });
      expect('task' in sent && sent.task.status).toMatchObject({
        state: 'TASK_STATE_COMPLETED',
        message: { parts: [{ text: 'over gRPC' }] },
      });
    } finally {
      client.close();
    }
  } finally {
    expect(await agent.stop()).toBe(0);
  }
});
