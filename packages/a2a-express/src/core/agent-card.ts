// The agent's card as its author gives it, completed and checked once: what every version's card
// is made from (versions/<v>/card.ts), whichever versions are served.
import {
  formatIssues,
  validateAgentCard,
  type AgentAuthentication,
  type AgentCapabilities,
  type AgentCard,
  type AgentSkill,
} from 'a2a-types/model';

/**
 * The agent card as the author gives it. `url` defaults to where the router is mounted (from
 * each request; a router that signs its cards needs it given), `capabilities` to what the router really serves, `skills` to none and the
 * default input/output modes to `["text/plain"]`.
 */
export type AgentCardInput = Omit<AgentCard, 'url' | 'capabilities' | 'skills'> & {
  url?: string;
  capabilities?: AgentCapabilities;
  skills?: AgentSkill[];
};

/** The features the router really serves; the card's capabilities say exactly these. */
interface EnabledFeatures {
  streaming: boolean;
  pushNotifications: boolean;
  /** The card's `authentication`, from the configured strategies (undefined: no auth configured). */
  authentication?: AgentAuthentication;
}

/**
 * Completes and checks the card once, when the router is made, so a bad card fails at
 * start-up with a clear message rather than at request time. Returns the card as served where
 * the router is mounted: with `url` the mount's URL (`mountUrl`, seen from the request) when the
 * author gave none (without one, a stand-in URL: for checks made before any request).
 */
export function prepareCard(input: AgentCardInput, enabled: EnabledFeatures): (mountUrl?: string) => AgentCard {
  for (const key of ['streaming', 'pushNotifications', 'stateTransitionHistory'] as const) {
    const declared = input.capabilities?.[key];
    const actual = key === 'stateTransitionHistory' ? false : enabled[key];
    if (declared !== undefined && declared !== actual) {
      throw new TypeError(
        `a2aRouter: card.capabilities.${key} is ${declared} but the router ${actual ? 'serves' : 'does not serve'} it; ` +
          'leave capabilities out and the router fills them in',
      );
    }
  }
  if (enabled.authentication && input.authentication != null) {
    throw new TypeError('a2aRouter: card.authentication is filled from options.auth; leave it out of the card');
  }
  // Everything the author wrote is kept (extension fields too); only the defaults are added.
  const card: AgentCard = {
    ...input,
    url: input.url ?? 'http://localhost/', // a stand-in for checking; replaced per request
    capabilities: { streaming: enabled.streaming, pushNotifications: enabled.pushNotifications, stateTransitionHistory: false },
    defaultInputModes: input.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: input.defaultOutputModes ?? ['text/plain'],
    skills: input.skills ?? [],
    ...(enabled.authentication ? { authentication: enabled.authentication } : {}),
  };
  if (!validateAgentCard(card)) {
    throw new TypeError(`a2aRouter: invalid agent card: ${formatIssues(validateAgentCard.issues)}`);
  }
  if (input.url !== undefined) return () => card;
  return (mountUrl) => (mountUrl ? { ...card, url: mountUrl } : card);
}
