// What every adapter shares, with no AI library in it: importing the package's root loads
// neither the AI SDK nor LangChain.js. Each library has an entry point of its own
// (`a2a-ai/ai-sdk`, `a2a-ai/langchain`), loaded only by the agents that use it.
export {
  ASK_USER_TOOL,
  DEFAULT_FAILURE_MESSAGE,
  TURN_METADATA_KEY,
  modelTurnUpdates,
  type ModelEvent,
  type ModelToolCall,
  type ModelTurnOptions,
  type ModelUsage,
  type TurnRecord,
} from './model-turn.js';
export { transcriptOf, type TranscriptEntry, type TranscriptToolResult } from './transcript.js';
export {
  type AnyAgentCard,
  connectAgent,
  RemoteAgent,
  type RemoteAgentOptions,
  type RemoteAnswer,
  RemoteConversation,
  type RemoteProtocol,
  type RemoteState,
} from './remote-agent.js';
