import { RouteMissingError, asRecord, type CoreClient } from './core-client.js';

/** What identifies a login method: a queue row's or one read from the export. */
export interface MethodIdentity {
  recipeId?: string;
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
}

/** The coded "already exists" import errors of contract §10.5. */
export const ALREADY_EXISTS = /\bE0(03|05|06|07|31)\b/;
const EXTERNAL_ID_TAKEN = /\bE031\b/;

/**
 * Tells a user imported by an earlier run (same old id, same login method: count it as imported)
 * from a real conflict with someone else's account.
 */
export class ExistingUsers {
  private lookupAvailable = true;

  constructor(private readonly client: CoreClient) {}

  async isAlreadyImported(externalUserId: string | undefined, method: MethodIdentity, message: string): Promise<boolean> {
    if (!ALREADY_EXISTS.test(message) || externalUserId === undefined) return false;
    // Without GET /user/id, trust the external id alone, which is what E031 says.
    if (!this.lookupAvailable) return EXTERNAL_ID_TAKEN.test(message);
    let user: Record<string, unknown> | undefined;
    try {
      user = await this.client.findUser(externalUserId);
    } catch (error) {
      if (!(error instanceof RouteMissingError)) throw error;
      this.lookupAvailable = false;
      return EXTERNAL_ID_TAKEN.test(message);
    }
    if (!user || user.id !== externalUserId) return false;
    const methods = Array.isArray(user.loginMethods) ? user.loginMethods.map(asRecord) : [];
    return methods.some((existing) => sameMethod(existing, method));
  }
}

function sameMethod(existing: Record<string, unknown>, wanted: MethodIdentity): boolean {
  if (existing.recipeId !== wanted.recipeId) return false;
  const email = wanted.email?.trim().toLowerCase();
  switch (wanted.recipeId) {
    case 'emailpassword':
      return existing.email === email;
    case 'thirdparty': {
      const thirdParty = asRecord(existing.thirdParty);
      return thirdParty.id === wanted.thirdPartyId && thirdParty.userId === wanted.thirdPartyUserId;
    }
    case 'passwordless':
      return (email === undefined || existing.email === email)
        && (wanted.phoneNumber === undefined || digits(existing.phoneNumber) === digits(wanted.phoneNumber));
    default:
      return false;
  }
}

// The core stores phone numbers in E.164; the export may have spaces or dashes.
function digits(value: unknown): string {
  return typeof value === 'string' ? value.replace(/[^\d]/g, '') : '';
}
