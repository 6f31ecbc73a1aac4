// The 0.3 agent card (`/.well-known/agent-card.json`), made from the same card as the 0.1.0 one:
// the 0.3 endpoint as its `url` and JSON-RPC interface, HTTP+JSON below it, the capabilities the
// router serves, and the authentication strategies as 0.3 security schemes.
import { formatIssues, type AgentCard } from 'a2a-types/model';
import {
  validateAgentCard03,
  type AgentCard as AgentCard03,
  type AgentInterface as AgentInterface03,
  type AgentSkill as AgentSkill03,
} from 'a2a-types/v0.3';
import type { AgentExtensionOption } from '../../core/extensions.js';
import type { AuthOptions } from '../../core/auth.js';
import { PROTOCOL_VERSION_03 } from './mapping.js';

/** Fields to add to, or replace in, the 0.3 card the router makes (`protocol03.card`). */
export type AgentCard03Input = Partial<AgentCard03>;

/**
 * Makes the 0.3 card from the 0.1.0 one (as served for a request) and where the 0.3 endpoint is;
 * `served` are the other 0.3 interfaces to list beside it (gRPC, while its server runs).
 * Required 0.3 fields that 0.1.0 leaves optional are filled: `description` and a skill's
 * `description` from the name, a skill's `tags` empty. A provider without a URL is left out
 * (0.3 requires one). `overrides` are applied last.
 */
export function agentCard03(
  card: AgentCard,
  url: string,
  auth: AuthOptions | undefined,
  overrides: AgentCard03Input = {},
  extensions: readonly AgentExtensionOption[] = [],
  served: readonly AgentInterface03[] = [],
): AgentCard03 {
  const card03: AgentCard03 = {
    protocolVersion: PROTOCOL_VERSION_03,
    name: card.name,
    description: card.description ?? card.name,
    url,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url, transport: 'JSONRPC' },
      // The HTTP+JSON routes are below the same URL (`${url}/v1/message:send`).
      { url, transport: 'HTTP+JSON' },
      ...served,
    ],
    version: card.version,
    capabilities: {
      streaming: card.capabilities.streaming === true,
      pushNotifications: card.capabilities.pushNotifications === true,
      stateTransitionHistory: false,
      ...(extensions.length > 0 && { extensions: extensions.map((extension) => ({ ...extension })) }),
    },
    defaultInputModes: card.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: card.defaultOutputModes ?? ['text/plain'],
    skills: card.skills.map((skill) => {
      const skill03: AgentSkill03 = {
        id: skill.id,
        name: skill.name,
        description: skill.description ?? skill.name,
        tags: skill.tags ?? [],
      };
      if (skill.examples != null) skill03.examples = skill.examples;
      if (skill.inputModes != null) skill03.inputModes = skill.inputModes;
      if (skill.outputModes != null) skill03.outputModes = skill.outputModes;
      return skill03;
    }),
  };
  if (card.provider?.url != null) card03.provider = { organization: card.provider.organization, url: card.provider.url };
  if (card.documentationUrl != null) card03.documentationUrl = card.documentationUrl;
  if (auth) Object.assign(card03, securityOf(auth));
  return { ...card03, ...overrides };
}

/**
 * The strategies as 0.3 security schemes, any one of which is enough: an API key strategy (its
 * card credentials name the header) as `apiKey`, any other as HTTP authentication with its scheme.
 */
function securityOf(auth: AuthOptions): Pick<AgentCard03, 'securitySchemes' | 'security'> {
  const securitySchemes: Record<string, Record<string, unknown>> = {};
  const scopes: Record<string, readonly string[]> = {};
  for (const { scheme, cardCredentials, declared, requiredScopes = [] } of auth.strategies) {
    const name = scheme.toLowerCase();
    if (declared?.kind === 'openIdConnect') {
      securitySchemes.openid = {
        type: 'openIdConnect',
        openIdConnectUrl: declared.url,
        ...(declared.description && { description: declared.description }),
      };
      scopes.openid = requiredScopes;
    } else if (declared?.kind === 'oauth2') {
      // 0.3's flows are OpenAPI's, in one scheme; it has no device code flow.
      const { authorizationCode, clientCredentials } = declared.flows;
      if (!authorizationCode && !clientCredentials) continue;
      const flows: Record<string, unknown> = {};
      if (authorizationCode) {
        const { pkceRequired: _pkce, ...flow } = authorizationCode;
        flows.authorizationCode = flow;
      }
      if (clientCredentials) flows.clientCredentials = clientCredentials;
      securitySchemes.oauth2 = {
        type: 'oauth2',
        flows,
        ...(declared.metadataUrl && { oauth2MetadataUrl: declared.metadataUrl }),
        ...(declared.description && { description: declared.description }),
      };
      scopes.oauth2 = requiredScopes;
    } else if (typeof cardCredentials?.in === 'string' && typeof cardCredentials.name === 'string') {
      securitySchemes[name] = { type: 'apiKey', in: cardCredentials.in, name: cardCredentials.name };
    } else {
      securitySchemes[name] = name === 'bearer' ? { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } : { type: 'http', scheme: name };
    }
  }
  return { securitySchemes, security: Object.keys(securitySchemes).map((name) => ({ [name]: [...(scopes[name] ?? [])] })) };
}

/**
 * Throws a TypeError, when the router is made, if the 0.3 card would not pass the 0.3 schema
 * (whose card is the published one: tests check the served card against the published schema).
 */
export function checkAgentCard03(card: AgentCard03): void {
  if (!validateAgentCard03(card)) throw new TypeError(`a2aRouter: invalid 0.3 agent card: ${formatIssues(validateAgentCard03.issues)}`);
}
