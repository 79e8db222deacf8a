import crypto from 'node:crypto';

// Session handles and anti-CSRF tokens are random UUIDs v4 (S-2.1). This core issues only public handles; the
// reference appends `_<tenantId>` for another tenant, which is read back here so such a handle names its tenant.
export const newSessionHandle = (): string => crypto.randomUUID();
export const newAntiCsrfToken = (): string => crypto.randomUUID();

export function tenantOfHandle(handle: string): string {
  const index = handle.indexOf('_');
  return index === -1 ? 'public' : handle.slice(index + 1);
}

/** Lower-case hex SHA-256 (`sha(x)` of the contract): H1(RT) = sha(RT) is in access tokens, H2(RT) = sha(H1) is stored. */
export function sha256Hex(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}
