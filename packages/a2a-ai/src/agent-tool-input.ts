// The input of a remote agent's tool, the same for every AI library: one message.
export const AGENT_TOOL_INPUT_SCHEMA = {
  type: 'object' as const,
  properties: {
    message: {
      type: 'string' as const,
      description: 'What to ask or tell the agent, in natural language (or the answer to its question)',
    },
  },
  required: ['message'],
  additionalProperties: false,
};
