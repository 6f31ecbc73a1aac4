// The shapes an agent writes, whichever version its clients speak: the card as its author gives
// it, messages, parts, artifacts and push configs as a handler makes and reads them. The kit's
// core, stores and push delivery speak these (with the ids and states the newer versions add, in
// a2a-express's model); each version maps them to its wire. A2A 0.1.0's wire has these very
// shapes, so its types (the package's root) re-export them; 0.3 and 1.0 convert.
// Section numbers in brackets are A2A 0.1.0's, which defined the shapes first.

/** Free-form JSON metadata carried by most objects. */
export type Metadata = Record<string, unknown>;

/** [5.5.1] The organization behind an agent. */
export interface AgentProvider {
  organization: string;
  url?: string | null;
}

/** [5.5.2] Optional protocol features an agent supports. */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
}

/** [5.5.3] Authentication schemes required by the agent's endpoint. Never holds secrets. */
export interface AgentAuthentication {
  schemes: string[];
  credentials?: string | null;
}

/** [5.5.4] One skill the agent offers. */
export interface AgentSkill {
  id: string;
  name: string;
  description?: string | null;
  tags?: string[] | null;
  examples?: string[] | null;
  inputModes?: string[] | null;
  outputModes?: string[] | null;
}

/** [5.5] The agent card as its author gives it: what 0.1.0 serves at `/.well-known/agent.json`, and what the newer versions' cards are made from. */
export interface AgentCard {
  name: string;
  description?: string | null;
  url: string;
  provider?: AgentProvider | null;
  version: string;
  documentationUrl?: string | null;
  capabilities: AgentCapabilities;
  authentication?: AgentAuthentication | null;
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  skills: AgentSkill[];
}

/** [6.5.1] */
export interface TextPart {
  type: 'text';
  text: string;
  metadata?: Metadata | null;
}

/** [6.6] A file's content or reference: at most one of `bytes` (base64) and `uri`. */
export interface FileContent {
  name?: string | null;
  mimeType?: string | null;
  bytes?: string | null;
  uri?: string | null;
}

/** [6.5.2] */
export interface FilePart {
  type: 'file';
  file: FileContent;
  metadata?: Metadata | null;
}

/** [6.5.3] `data` is a JSON object or array. */
export interface DataPart {
  type: 'data';
  data: Record<string, unknown> | unknown[];
  metadata?: Metadata | null;
}

/** [6.5] */
export type Part = TextPart | FilePart | DataPart;

/** [6.4] One turn of communication; always at least one part. */
export interface Message {
  role: 'user' | 'agent';
  parts: Part[];
  metadata?: Metadata | null;
}

/** [6.7] An output of a task; `append`/`lastChunk` only matter in streaming events. */
export interface Artifact {
  name?: string | null;
  description?: string | null;
  parts: Part[];
  index?: number;
  append?: boolean | null;
  lastChunk?: boolean | null;
  metadata?: Metadata | null;
}

/** [6.9] How the server authenticates itself to a client's webhook. */
export interface AuthenticationInfo {
  schemes: string[];
  credentials?: string | null;
  [extra: string]: unknown;
}

/** [6.8] */
export interface PushNotificationConfig {
  url: string;
  token?: string | null;
  authentication?: AuthenticationInfo | null;
}
