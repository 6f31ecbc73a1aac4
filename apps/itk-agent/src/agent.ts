// The ITK agent: follows the integration test kit's instructions (proto/instruction.proto). An
// instruction answers with a text, runs a series of instructions (their answers one a line), or
// calls another agent with an instruction of its own, over the binding it names, in one of four
// ways (send, stream, push, resubscribe): the answer is what that agent answered. A chain of
// such agents, each of another SDK, is how the kit checks that they understand each other.
import { setTimeout as sleep } from 'node:timers/promises';
import { fromBinary } from '@bufbuild/protobuf';
import type { Express } from 'express';
import {
  a2aRouter,
  completed,
  failed,
  working,
  type A2ARouter,
  type A2ARouterOptions,
  type AgentCardInput,
  type TaskContext,
  type TaskHandler,
} from 'a2a-express';
import type { GrpcTransport } from 'a2a-client';
import { InstructionSchema, type Instruction } from './gen/instruction_pb.js';
import { callAgent, INSTRUCTION_FILE_NAME, INSTRUCTION_MEDIA_TYPE, TASK_FINISHED } from './call-agent.js';

export const itkCard: AgentCardInput = {
  name: 'ITK Agent',
  description: 'Follows the A2A integration test kit’s instructions, calling the next agent with a2a-client.',
  version: '0.1.0',
  defaultInputModes: ['application/x-protobuf', 'text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'itk-instruction',
      name: 'ITK instruction',
      description:
        'Takes an ITK Instruction (protobuf, in a file part named instruction.bin): returns a response, runs steps, or calls the next agent.',
      tags: ['itk', 'testing', 'interoperability'],
    },
  ],
};

export { INSTRUCTION_FILE_NAME, INSTRUCTION_MEDIA_TYPE, TASK_FINISHED };

export interface ItkOptions {
  /**
   * How long a task whose instruction says `hold_task` stays working after answering, unless it is
   * canceled first (what the caller that resubscribed does). Default 10 s, the kit's agents' hold.
   */
  holdMs?: number;
  /** How the agent calls the next one over gRPC: a2a-client's `grpcTransport()` (a2a-client/grpc). */
  grpc?: GrpcTransport;
}

export function createItkHandler({ holdMs = 10_000, grpc }: ItkOptions = {}): TaskHandler {
  return async function* itk(ctx) {
    let instruction: Instruction;
    try {
      instruction = instructionIn(ctx.message);
    } catch (error) {
      yield failed((error as Error).message);
      return;
    }
    yield working();
    let answer: string;
    try {
      answer = (await follow(instruction, { grpc, signal: ctx.signal })).join('\n');
    } catch (error) {
      // The chain's caller reads where it broke in the failed task's message.
      ctx.logger.warn({ err: error }, 'ITK instruction failed');
      yield failed(`ITK instruction failed: ${(error as Error).message}`);
      return;
    }
    if (!holds(instruction)) {
      yield completed(answer);
      return;
    }
    // The answer goes out while the task is still working, for the caller to find when it
    // subscribes again; the task then waits to be canceled, as the kit's resubscribe asks.
    yield working(`${answer}\n${TASK_FINISHED}`);
    await sleep(holdMs, undefined, { signal: ctx.signal }).catch(() => undefined);
    if (!ctx.signal.aborted) yield completed(answer);
  };
}

/** The instruction a message carries, in its file part; an error that says what is wrong when none. */
export function instructionIn(message: TaskContext['message']): Instruction {
  const part = message.parts.find(
    (p) => p.type === 'file' && (p.file.mimeType === INSTRUCTION_MEDIA_TYPE || p.file.name === INSTRUCTION_FILE_NAME),
  );
  if (part?.type !== 'file' || !part.file.bytes)
    throw new Error(
      `No ITK instruction in the message: send it as a file part with bytes, media type ${INSTRUCTION_MEDIA_TYPE}, named ${INSTRUCTION_FILE_NAME}.`,
    );
  try {
    return fromBinary(InstructionSchema, Buffer.from(part.file.bytes, 'base64'));
  } catch (error) {
    throw new Error(`The ${INSTRUCTION_FILE_NAME} part is not an ITK Instruction: ${(error as Error).message}`);
  }
}

/** The answers of an instruction, in order: one for a response, those of a call's agent, all of a series. */
async function follow(instruction: Instruction, how: { grpc?: GrpcTransport; signal: AbortSignal }): Promise<string[]> {
  const { step } = instruction;
  switch (step.case) {
    case 'returnResponse':
      return [step.value.response];
    case 'steps': {
      const answers: string[] = [];
      for (const each of step.value.instructions) answers.push(...(await follow(each, how)));
      return answers;
    }
    case 'callAgent':
      return callAgent(step.value, how);
    default:
      throw new Error('an instruction with no step (call_agent, return_response or steps)');
  }
}

/** Whether any response in the instruction asks the task to be held. */
function holds(instruction: Instruction): boolean {
  const { step } = instruction;
  if (step.case === 'returnResponse') return step.value.holdTask;
  if (step.case === 'steps') return step.value.instructions.some(holds);
  return false;
}

/** The ITK agent's router; mount it with `app.use(...)`. */
export function itkRouter(options: ItkOptions & Omit<A2ARouterOptions, 'card'> = {}): A2ARouter {
  const { holdMs, grpc, ...routerOptions } = options;
  return a2aRouter(createItkHandler({ holdMs, grpc }), { card: itkCard, ...routerOptions });
}

/**
 * Adds the endpoint the kit's runner sends its first instruction to: JSON-RPC at
 * `<agent>/jsonrpc/`, A2A 1.0 or 0.3 as its `A2A-Version` header says. The router serves those
 * at `/v1` and `/v0.3`; this passes the call on to the one the header names.
 */
export function withKitEndpoint<App extends Express>(app: App): App {
  app.post(['/jsonrpc', '/jsonrpc/'], (req, _res, next) => {
    req.url = /^1(\.|$)/.test(req.get('a2a-version') ?? '') ? '/v1' : '/v0.3';
    next();
  });
  return app;
}
