import bcrypt from 'bcrypt';

// Synthetic migration data: email-password users with real-looking bcrypt hashes (a few real ones with the salt
// text varied per user), an external id each, every other one verified, one in ten with metadata. With
// BENCH_LINKED_SHARE (0 to 1, default 0) that share of the users also signs in with Google and a phone number: one
// user with three login methods (AL-11).

export interface BenchUser {
  index: number;
  email: string;
  hash: string;
  externalUserId: string;
  verified: boolean;
  timeJoined: number;
  metadata: Record<string, unknown> | undefined;
  linked: boolean;
}

const linkedShare = Number(process.env.BENCH_LINKED_SHARE ?? 0);
const linkedEvery = linkedShare > 0 ? Math.round(1 / linkedShare) : 0;

// The other two login methods of a linked user, the same in the request and in the COPY ceiling.
export function linkedContacts(index: number): { googleId: string; phoneNumber: string } {
  return { googleId: `google-${index}`, phoneNumber: `+1${String(2_000_000_000 + index)}` };
}

const bcryptAlphabet = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function realBcryptHashes(count: number): string[] {
  return Array.from({ length: count }, (_, i) => bcrypt.hashSync(`password-${i}`, 10));
}

// `$2b$10$` + 22 salt characters + 31 hash characters; the first 6 salt characters spell the user's index.
function varySalt(hash: string, index: number): string {
  let spelled = '';
  for (let rest = index, i = 0; i < 6; i++, rest = Math.floor(rest / 64)) spelled += bcryptAlphabet[rest % 64];
  return hash.slice(0, 7) + spelled + hash.slice(13);
}

export function benchUser(index: number, hashes: string[], baseTime: number): BenchUser {
  return {
    index,
    email: `user${index}@example.com`,
    hash: varySalt(hashes[index % hashes.length], index),
    externalUserId: `legacy-${index}`,
    verified: index % 2 === 0,
    timeJoined: baseTime + index,
    metadata: index % 10 === 0 ? { plan: 'pro', source: 'legacy-idp', seats: index % 7 } : undefined,
    linked: linkedEvery > 0 && index % linkedEvery === 1,
  };
}

export function requestUser(user: BenchUser): Record<string, unknown> {
  const loginMethods: Record<string, unknown>[] = [
    {
      recipeId: 'emailpassword',
      email: user.email,
      passwordHash: user.hash,
      hashingAlgorithm: 'bcrypt',
      isVerified: user.verified,
      timeJoinedInMSSinceEpoch: user.timeJoined,
    },
  ];
  if (user.linked) {
    const { googleId, phoneNumber } = linkedContacts(user.index);
    const time = { timeJoinedInMSSinceEpoch: user.timeJoined };
    loginMethods.push({ recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: googleId, email: user.email, ...time });
    loginMethods.push({ recipeId: 'passwordless', phoneNumber, ...time });
  }
  return { externalUserId: user.externalUserId, ...(user.metadata && { userMetadata: user.metadata }), loginMethods };
}

// Request bodies of up to `perRequest` users, built before the clock starts.
export function requestBodies(total: number, perRequest: number, hashes: string[], baseTime: number): string[] {
  const bodies: string[] = [];
  for (let start = 0; start < total; start += perRequest) {
    const users: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(total, start + perRequest); i++) users.push(requestUser(benchUser(i, hashes, baseTime)));
    bodies.push(JSON.stringify({ users }));
  }
  return bodies;
}
