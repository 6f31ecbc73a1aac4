// The host agent: a model that routes each request to the other agents it knows, with each of
// them as a tool (a2aAgentTool), and answers with what they said. Each conversation with the
// host is a conversation of its own with each agent (its context, and a task that waits for
// input), so a follow-up reaches the agent where it left off.
import { isStepCount, type LanguageModel, streamText, type Tool } from 'ai';
import { a2aRouter, type A2ARouter, type A2ARouterOptions, type AgentCardInput } from 'a2a-express';
import { connectAgent, type RemoteAgent, type RemoteAgentOptions, type RemoteConversation } from 'a2a-ai';
import { a2aAgentTool, aiSdkHandler } from 'a2a-ai/ai-sdk';

export const hostCard: AgentCardInput = {
  name: 'Host Agent',
  description: 'Routes each request to the agents it knows (the echo and currency agents) and answers with their results.',
  version: '0.1.0',
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'route',
      name: 'Ask the other agents',
      description: 'Passes the request to the agents that can answer it, and answers with what they said.',
      tags: ['orchestration', 'routing'],
      examples: ['convert 100 USD to EUR', 'echo hello'],
    },
  ],
};

const INSTRUCTIONS =
  'You are a host agent. Answer each request by calling the agent tools that can help with it, then answer with what they said. ' +
  'When an agent asks for more, ask the user (or answer it yourself if the conversation already tells you).';

/** An agent the host knows: where it is, and how to call it (its version, binding, credentials, ...). */
export interface KnownAgent extends RemoteAgentOptions {
  url: string;
}

export interface HostOptions {
  /** The agents, by the tool name the model knows them by. */
  agents: Record<string, KnownAgent>;
  /** The model that routes. */
  model: LanguageModel;
  /** How many of the host's conversations keep their agents' conversations (the oldest forgotten first). Default 1,000. */
  conversationsKept?: number;
}

/** The host's handler and its tools, one set of agent conversations per conversation with the host. */
function hostHandler({ agents, model, conversationsKept = 1_000 }: HostOptions) {
  const connected = new Map<string, RemoteAgent>();
  const conversations = new Map<string, Map<string, RemoteConversation>>();

  /** The agent, its card read once it answers: one that does not (yet) is left out of this turn. */
  async function agentNamed(name: string, known: KnownAgent): Promise<RemoteAgent> {
    let remote = connected.get(name);
    if (!remote) {
      const { url, ...options } = known;
      remote = await connectAgent(url, options);
      connected.set(name, remote);
    }
    return remote;
  }

  function conversationsOf(contextId: string): Map<string, RemoteConversation> {
    let kept = conversations.get(contextId);
    if (kept) conversations.delete(contextId);
    kept ??= new Map();
    conversations.set(contextId, kept);
    if (conversations.size > conversationsKept) conversations.delete(conversations.keys().next().value!);
    return kept;
  }

  return aiSdkHandler(async ({ messages, abortSignal }, ctx) => {
    const kept = conversationsOf(ctx.contextId);
    const tools: Record<string, Tool> = {};
    for (const [name, known] of Object.entries(agents)) {
      try {
        const remote = await agentNamed(name, known);
        let conversation = kept.get(name);
        if (!conversation) kept.set(name, (conversation = remote.conversation()));
        tools[name] = (await a2aAgentTool(remote, { conversation })) as Tool;
      } catch (error) {
        ctx.logger.warn({ agent: name, url: known.url, err: error }, 'an agent is unreachable: left out of this turn');
      }
    }
    return streamText({ model, instructions: INSTRUCTIONS, messages, tools, stopWhen: isStepCount(6), abortSignal, onError: () => {} });
  });
}

/** The host agent's router; mount it with `app.use(...)`. */
export function hostRouter(options: HostOptions & Omit<A2ARouterOptions, 'card'>): A2ARouter {
  const { agents, model, conversationsKept, ...routerOptions } = options;
  return a2aRouter(hostHandler({ agents, model, ...(conversationsKept ? { conversationsKept } : {}) }), {
    card: hostCard,
    ...routerOptions,
  });
}
