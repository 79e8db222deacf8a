import { coreError } from '../../errors.js';
import type { ServiceDependencies } from '../../service-deps.js';
import {
  deleteUserMetadata,
  findMetadataOfUsers,
  findUserMetadata,
  mergeUserMetadata,
  sumMetadataBytesOfUsers,
  type Metadata,
} from './repository.js';

// One bulk answer is held whole in memory (parsed, then serialised): 500 ids of one large record would be gigabytes.
export const MAX_BULK_METADATA_BYTES = 16 * 1024 * 1024;

/** User metadata (contract M-3): one JSON object per user id, the id an opaque key used exactly as sent. */
export class UserMetadataService {
  constructor(private readonly deps: Pick<ServiceDependencies, 'pool'>) {}

  async get(userId: string): Promise<Metadata> {
    return (await findUserMetadata(this.deps.pool, userId)) ?? {};
  }

  async getMany(userIds: string[]): Promise<{ userId: string; metadata: Metadata | null }[]> {
    if (userIds.length === 0) return [];
    const bytes = await sumMetadataBytesOfUsers(this.deps.pool, userIds);
    if (bytes > MAX_BULK_METADATA_BYTES) throw coreError('BULK_METADATA_TOO_LARGE', MAX_BULK_METADATA_BYTES);
    const metadata = await findMetadataOfUsers(this.deps.pool, userIds);
    return userIds.map((userId, index) => ({ userId, metadata: metadata[index] }));
  }

  async update(userId: string, metadataUpdate: Metadata): Promise<Metadata> {
    return mergeUserMetadata(this.deps.pool, userId, JSON.stringify(metadataUpdate));
  }

  async remove(userId: string): Promise<void> {
    await deleteUserMetadata(this.deps.pool, [userId]);
  }
}
