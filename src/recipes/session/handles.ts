import crypto from 'node:crypto';

// Session handles and anti-CSRF tokens are random UUIDs v4 (S-2.1). A session of a tenant other than public has
// `_<tenantId>` appended, as the reference does, and its handle names its tenant.
export const newSessionHandle = (tenantId = 'public'): string =>
  tenantId === 'public' ? crypto.randomUUID() : `${crypto.randomUUID()}_${tenantId}`;
export const newAntiCsrfToken = (): string => crypto.randomUUID();

export function tenantOfHandle(handle: string): string {
  const index = handle.indexOf('_');
  return index === -1 ? 'public' : handle.slice(index + 1);
}

/** Lower-case hex SHA-256 (`sha(x)` of the contract): H1(RT) = sha(RT) is in access tokens, H2(RT) = sha(H1) is stored. */
export function sha256Hex(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}
