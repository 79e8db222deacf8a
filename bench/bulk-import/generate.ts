import bcrypt from 'bcrypt';

// Synthetic migration data: email-password users with real-looking bcrypt hashes (a few real ones with the salt
// text varied per user), an external id each, every other one verified, one in ten with metadata.

export interface BenchUser {
  index: number;
  email: string;
  hash: string;
  externalUserId: string;
  verified: boolean;
  timeJoined: number;
  metadata: Record<string, unknown> | undefined;
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
  };
}

export function requestUser(user: BenchUser): Record<string, unknown> {
  return {
    externalUserId: user.externalUserId,
    ...(user.metadata && { userMetadata: user.metadata }),
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: user.email,
        passwordHash: user.hash,
        hashingAlgorithm: 'bcrypt',
        isVerified: user.verified,
        timeJoinedInMSSinceEpoch: user.timeJoined,
      },
    ],
  };
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
