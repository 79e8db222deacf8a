// The only paths whose pipeline checks differ from every other route's (contract §1.4, §1.5, §4.2).
export interface PathExemption {
  /** Answered without an API key. */
  apiKey: boolean;
  /** Any well-formed cdi-version up to the maximum is accepted, not only the supported set. */
  cdiVersionMembership: boolean;
  /** A non-public app or tenant in the path is answered 404 (only `/`: there it can only be a tenant that does not exist). */
  publicTenantOnly: boolean;
}

const EXEMPTIONS: Readonly<Record<string, PathExemption>> = {
  '/': { apiKey: true, cdiVersionMembership: true, publicTenantOnly: true },
  '/hello': { apiKey: true, cdiVersionMembership: true, publicTenantOnly: false },
  '/apiversion': { apiKey: false, cdiVersionMembership: true, publicTenantOnly: false },
};

const NONE: PathExemption = { apiKey: false, cdiVersionMembership: false, publicTenantOnly: false };

export function exemptionFor(routePath: string | undefined): PathExemption {
  return (routePath !== undefined && EXEMPTIONS[routePath]) || NONE;
}
