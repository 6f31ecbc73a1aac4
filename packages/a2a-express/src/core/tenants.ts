// Tenants (spec 1.0: `tenant` on every request message, `AgentInterface.tenant`, HTTP+JSON's
// `/{tenant}/…` paths): several agents, or one agent's customers, behind one endpoint. The
// router serves the default tenant (no `tenant`) and those its options name. A tenant's tasks
// are its own: they belong to the tenant and the principal together, so another tenant's (or the
// default tenant's) calls do not find them, whoever makes them.
import { A2AError } from 'a2a-types/model';
import type { Principal } from './principal.js';

/** The tenants an agent serves besides the default one. */
export interface ServedTenants {
  /** Those its 1.0 card lists, each with interfaces of its own (`listTenantsInCard`; none for a function's). */
  readonly listed: readonly string[];
  serves(tenant: string): boolean;
}

/**
 * Longest tenant: a path segment and a key, not a document. It is part of every task's owner,
 * which the PostgreSQL store indexes: a bound of the store's would differ from the others'.
 */
const MAX_TENANT_CHARS = 256;

/** The `tenants` option, checked when the router is made; a list's tenants `listed` in the card when asked. */
export function checkedTenants(option: unknown, listInCard = false): ServedTenants | undefined {
  if (option === undefined) return undefined;
  if (typeof option === 'function') {
    const serves = option as (tenant: string) => unknown;
    // The function is asked only of tenants a list could name, by length: a longer one is refused on every store.
    return { listed: [], serves: (tenant) => tenant.length <= MAX_TENANT_CHARS && serves(tenant) === true };
  }
  if (!Array.isArray(option)) throw new TypeError('a2aRouter: tenants must be an array of tenant names, or a function (tenant) => boolean');
  const listed: string[] = [];
  for (const [i, tenant] of option.entries()) {
    if (typeof tenant !== 'string' || tenant === '' || tenant.length > MAX_TENANT_CHARS || /[/\s]/.test(tenant))
      throw new TypeError(`a2aRouter: tenants[${i}] must be a name of 1 to ${MAX_TENANT_CHARS} characters without slashes or spaces`);
    if (listed.includes(tenant)) throw new TypeError(`a2aRouter: tenants[${i}]: ${tenant} is listed twice`);
    listed.push(tenant);
  }
  const served = new Set(listed);
  return { listed: listInCard ? listed : [], serves: (tenant) => served.has(tenant) };
}

/** The tenant a 1.0 request's params name: its `tenant`, when not empty (empty is the default tenant, as proto3 has it). */
export function tenantOfParams(params: unknown): string | undefined {
  const tenant = (params as { tenant?: unknown } | null)?.tenant;
  return typeof tenant === 'string' && tenant !== '' ? tenant : undefined;
}

/** The refusal of a tenant the agent does not serve. */
export function tenantNotServed(tenant: string): A2AError {
  if (tenant.length > MAX_TENANT_CHARS) {
    return A2AError.invalidParams([
      {
        path: '/tenant',
        message: `must NOT have more than ${MAX_TENANT_CHARS} characters`,
        keyword: 'maxLength',
        params: { limit: MAX_TENANT_CHARS },
      },
    ]);
  }
  return A2AError.invalidParams([
    {
      path: '/tenant',
      message: `tenant ${JSON.stringify(tenant)} is not served by this agent`,
      keyword: 'tenant',
      params: { tenant },
    },
  ]);
}

/** The scheme of a tenant's owner: what tells its tasks from those of the default tenant. */
export const TENANT_SCHEME = 'a2a-tenant';

/**
 * Who owns what a call in `tenant` creates, as a principal the core's ownership reads: the tenant
 * and the caller's principal (if any) together. Only the core's ownership is shown it; the
 * handler and the authorize hook see the caller's own principal.
 */
export function tenantOwner(tenant: string, principal: Principal | undefined): Principal {
  const issuer = typeof principal?.claims?.iss === 'string' ? principal.claims.iss : '';
  return { id: JSON.stringify([tenant, principal?.scheme ?? '', issuer, principal?.id ?? '']), scheme: TENANT_SCHEME };
}
