// The task's conversation as a model should be given it, in neutral terms each adapter maps to
// its library's messages. The kit keeps every message of a task (the user's, and the agent's
// status messages); the messages this package sent carry what the model did in their metadata
// (model-turn.ts), so the model gets back its own tool calls, their results, and the user's
// answer to its question as the result of the tool that asked it.
import type { Message, TaskContext } from 'a2a-express';
import { TURN_METADATA_KEY, type ModelToolCall, type TurnRecord } from './model-turn.js';

export type TranscriptEntry =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  | { role: 'tool'; results: TranscriptToolResult[] };

export interface TranscriptToolResult {
  toolCallId: string;
  toolName: string;
  output: unknown;
  isError?: boolean;
}

/**
 * The task's history and this turn's message as a conversation: the user's messages as text
 * (text parts, and data parts as JSON; files are left out), the agent's as the model's own turns.
 * A user's message that answers a question the model asked (`input-required` from a tool that
 * asks the user) is that tool's result, `{ answer }`. Progress the model did not say (reasoning)
 * is left out, and so is a tool call that never got its result: providers refuse one.
 */
export function transcriptOf(ctx: Pick<TaskContext, 'history' | 'message'>): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  let awaitingAnswer: ModelToolCall[] = [];
  for (const message of [...ctx.history, ctx.message]) {
    if (message.role === 'user') {
      const text = textOf(message);
      if (awaitingAnswer.length > 0) {
        entries.push({
          role: 'tool',
          results: awaitingAnswer.map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName, output: { answer: text } })),
        });
        awaitingAnswer = [];
      } else entries.push({ role: 'user', text });
      continue;
    }
    awaitingAnswer = [];
    const record = recordOf(message);
    if (!record) {
      const text = textOf(message);
      if (text !== '') entries.push({ role: 'assistant', text, toolCalls: [] });
      continue;
    }
    switch (record.kind) {
      case 'tool-call':
        entries.push({ role: 'assistant', text: record.text ?? '', toolCalls: [record.toolCall] });
        break;
      case 'tool-result': {
        const result: TranscriptToolResult = { toolCallId: record.toolCallId, toolName: record.toolName, output: record.output };
        if (record.isError) result.isError = true;
        entries.push({ role: 'tool', results: [result] });
        break;
      }
      case 'ask-user':
        entries.push({ role: 'assistant', text: record.text ?? '', toolCalls: record.toolCalls });
        awaitingAnswer = record.toolCalls;
        break;
      case 'reasoning':
        break;
    }
  }
  return withAnsweredCallsOnly(entries);
}

function recordOf(message: Message): TurnRecord | undefined {
  const record = message.metadata?.[TURN_METADATA_KEY] as TurnRecord | undefined;
  return record && typeof record === 'object' && typeof record.kind === 'string' ? record : undefined;
}

/** The entries without tool calls that no result follows (a task canceled mid-call, a question never answered). */
function withAnsweredCallsOnly(entries: TranscriptEntry[]): TranscriptEntry[] {
  const answered = new Set<string>();
  for (const entry of entries) if (entry.role === 'tool') for (const result of entry.results) answered.add(result.toolCallId);
  const kept: TranscriptEntry[] = [];
  for (const entry of entries) {
    if (entry.role !== 'assistant' || entry.toolCalls.every((call) => answered.has(call.toolCallId))) {
      kept.push(entry);
      continue;
    }
    const toolCalls = entry.toolCalls.filter((call) => answered.has(call.toolCallId));
    if (entry.text !== '' || toolCalls.length > 0) kept.push({ role: 'assistant', text: entry.text, toolCalls });
  }
  return kept;
}

function textOf(message: Message): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'data') texts.push(JSON.stringify(part.data));
  }
  return texts.join('\n');
}
