// The model the host agent uses when no LLM is configured: the AI SDK's own test model, scripted
// as a model that routes would act. Given a request, it calls every agent tool it is offered with
// the request's text; given their results, it answers with what each agent said. So the sample
// runs, and its test runs, with no LLM and no network.
import { MockLanguageModelV4 } from 'ai/test';
import { simulateReadableStream } from 'ai';

type Prompt = { role: string; content: unknown }[];
type ContentPart = { type?: string; text?: string; toolName?: string; output?: { type?: string; value?: unknown } };

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

/** The parts of a message's content (a string content is one text part). */
function partsOf(content: unknown): ContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as ContentPart[]) : [];
}

/** What a tool's result says, as the answer quotes it: the agent's text, or its question. */
function saidBy(output: ContentPart['output']): string {
  const value = output?.value as { text?: unknown; question?: unknown; state?: unknown } | string | undefined;
  if (typeof value === 'string') return value;
  if (value?.state === 'input-required') return `asks: ${String(value.question ?? '')}`;
  return typeof value?.text === 'string' && value.text !== '' ? value.text : JSON.stringify(value ?? null);
}

/** The scripted model: tool calls for the latest request, then an answer from their results. */
export function scriptedRouterModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'router',
    doStream: async ({ prompt, tools }) => {
      const messages = prompt as Prompt;
      const lastUser = messages.map((m) => m.role).lastIndexOf('user');
      const request = partsOf(messages[lastUser]?.content)
        .map((p) => (p.type === 'text' ? (p.text ?? '') : ''))
        .join('');
      const results = messages
        .slice(lastUser + 1)
        .filter((m) => m.role === 'tool')
        .flatMap((m) => partsOf(m.content).filter((p) => p.type === 'tool-result'));
      const agentTools = (tools ?? []).map((t) => t.name);
      const chunks =
        results.length === 0 && agentTools.length > 0
          ? [
              ...agentTools.map((toolName, i) => ({
                type: 'tool-call' as const,
                toolCallId: `call-${i}`,
                toolName,
                input: JSON.stringify({ message: request }),
              })),
              { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage },
            ]
          : [
              { type: 'text-start' as const, id: 'answer' },
              {
                type: 'text-delta' as const,
                id: 'answer',
                delta:
                  results.length === 0
                    ? 'No agent is reachable right now.'
                    : results.map((r) => `${r.toolName}: ${saidBy(r.output)}`).join('\n'),
              },
              { type: 'text-end' as const, id: 'answer' },
              { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage },
            ];
      return { stream: simulateReadableStream({ chunks: chunks as never[], initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
}
