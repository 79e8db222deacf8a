// The §3 user object as tests expect it, written out independently of src/users/user-object.ts: one login method,
// not a primary user. Every test that checks a whole user body builds its expectation here.

export interface ExpectedLoginMethod {
  recipeId: 'emailpassword' | 'passwordless' | 'thirdparty';
  recipeUserId: string;
  timeJoined: number;
  verified: boolean;
  tenantIds?: string[];
  email?: string;
  phoneNumber?: string;
  thirdParty?: { id: string; userId: string };
}

/** `id` is the user's id when it differs from recipeUserId; `webauthn: false` for cdi versions before 5.3. */
export function expectedWireUser(method: ExpectedLoginMethod, options: { id?: string; webauthn?: boolean } = {}) {
  const tenantIds = method.tenantIds ?? ['public'];
  const { email, phoneNumber, thirdParty } = method;
  return {
    id: options.id ?? method.recipeUserId,
    isPrimaryUser: false,
    tenantIds,
    timeJoined: method.timeJoined,
    emails: email === undefined ? [] : [email],
    phoneNumbers: phoneNumber === undefined ? [] : [phoneNumber],
    thirdParty: thirdParty === undefined ? [] : [thirdParty],
    ...(options.webauthn !== false && { webauthn: { credentialIds: [] } }),
    loginMethods: [
      {
        tenantIds,
        recipeUserId: method.recipeUserId,
        verified: method.verified,
        timeJoined: method.timeJoined,
        recipeId: method.recipeId,
        ...(email !== undefined && { email }),
        ...(phoneNumber !== undefined && { phoneNumber }),
        ...(thirdParty !== undefined && { thirdParty }),
      },
    ],
  };
}
