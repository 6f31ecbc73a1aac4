// The A2A 1.0 agent card, made from the same card as the 0.1.0 and 0.3 ones: every interface the
// router serves in `supportedInterfaces`, the capabilities it really serves, and the
// authentication strategies as 1.0 security schemes.
import { formatIssues, type AgentCard } from 'a2a-types/model';
import { validateAgentCard10, type AgentCard as AgentCard10, type AgentInterface, type SecurityScheme } from 'a2a-types/v1.0';
import type { AgentExtensionOption } from '../../core/extensions.js';
import type { AuthOptions } from '../../core/auth.js';

/** Fields to add to, or replace in, the 1.0 card the router makes (`protocol10.card`). */
export type AgentCard10Input = Partial<AgentCard10>;

/**
 * Makes the 1.0 card from the 0.1.0 one (as served for a request) and the interfaces served.
 * Required 1.0 fields that 0.1.0 leaves optional are filled: `description` and a skill's
 * `description` from the name, a skill's `tags` empty. A provider without a URL is left out.
 * `overrides` are applied last.
 */
export function agentCard10(
  card: AgentCard,
  interfaces: AgentInterface[],
  auth: AuthOptions | undefined,
  overrides: AgentCard10Input = {},
  extensions: readonly AgentExtensionOption[] = [],
): AgentCard10 {
  const card10: AgentCard10 = {
    name: card.name,
    description: card.description ?? card.name,
    supportedInterfaces: interfaces,
    version: card.version,
    capabilities: {
      streaming: card.capabilities.streaming === true,
      pushNotifications: card.capabilities.pushNotifications === true,
      ...(extensions.length > 0 && { extensions: extensions.map((extension) => ({ ...extension })) }),
    },
    defaultInputModes: card.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: card.defaultOutputModes ?? ['text/plain'],
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description ?? skill.name,
      tags: skill.tags ?? [],
      ...(skill.examples != null ? { examples: skill.examples } : {}),
      ...(skill.inputModes != null ? { inputModes: skill.inputModes } : {}),
      ...(skill.outputModes != null ? { outputModes: skill.outputModes } : {}),
    })),
  };
  if (card.provider?.url != null) card10.provider = { organization: card.provider.organization, url: card.provider.url };
  if (card.documentationUrl != null) card10.documentationUrl = card.documentationUrl;
  if (auth) Object.assign(card10, securityOf(auth));
  return { ...card10, ...overrides };
}

/**
 * The strategies as 1.0 security schemes (each the field that names its kind), any one of which
 * is enough: an API key strategy (its card credentials name the header) as `apiKeySecurityScheme`,
 * any other as HTTP authentication with its scheme.
 */
function securityOf(auth: AuthOptions): Pick<AgentCard10, 'securitySchemes' | 'securityRequirements'> {
  const securitySchemes: Record<string, SecurityScheme> = {};
  const scopes: Record<string, readonly string[]> = {};
  for (const { scheme, cardCredentials, declared, requiredScopes = [] } of auth.strategies) {
    const name = scheme.toLowerCase();
    if (declared?.kind === 'openIdConnect') {
      securitySchemes.openid = {
        openIdConnectSecurityScheme: { openIdConnectUrl: declared.url, ...(declared.description && { description: declared.description }) },
      };
      scopes.openid = requiredScopes;
    } else if (declared?.kind === 'oauth2') {
      // 1.0's OAuthFlows holds one flow: a scheme per flow, any one of which is enough.
      const flows = Object.entries(declared.flows).filter(([, flow]) => flow !== undefined);
      for (const [flow, settings] of flows) {
        const flowName = flows.length === 1 ? 'oauth2' : `oauth2-${flow.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
        securitySchemes[flowName] = {
          oauth2SecurityScheme: {
            flows: { [flow]: settings },
            ...(declared.metadataUrl && { oauth2MetadataUrl: declared.metadataUrl }),
            ...(declared.description && { description: declared.description }),
          },
        };
        scopes[flowName] = requiredScopes;
      }
    } else if (typeof cardCredentials?.in === 'string' && typeof cardCredentials.name === 'string') {
      securitySchemes[name] = { apiKeySecurityScheme: { location: cardCredentials.in, name: cardCredentials.name } };
    } else {
      securitySchemes[name] = {
        httpAuthSecurityScheme: name === 'bearer' ? { scheme: 'Bearer', bearerFormat: 'JWT' } : { scheme },
      };
    }
  }
  return {
    securitySchemes,
    securityRequirements: Object.keys(securitySchemes).map((name) => ({ schemes: { [name]: { list: [...(scopes[name] ?? [])] } } })),
  };
}

/** Throws a TypeError, when the router is made, if the 1.0 card would not pass the published 1.0 schema. */
export function checkAgentCard10(card: AgentCard10): void {
  if (!validateAgentCard10(card)) throw new TypeError(`a2aRouter: invalid 1.0 agent card: ${formatIssues(validateAgentCard10.issues)}`);
}
