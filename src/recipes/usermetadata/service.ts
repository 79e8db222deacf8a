import type { ServiceDependencies } from '../../services.js';
import { deleteUserMetadata, findMetadataOfUsers, findUserMetadata, mergeUserMetadata, type Metadata } from './repository.js';

/** User metadata (contract M-3): one JSON object per user id, the id an opaque key used exactly as sent. */
export class UserMetadataService {
  constructor(private readonly deps: Pick<ServiceDependencies, 'pool'>) {}

  async get(userId: string): Promise<Metadata> {
    return (await findUserMetadata(this.deps.pool, userId)) ?? {};
  }

  async getMany(userIds: string[]): Promise<{ userId: string; metadata: Metadata | null }[]> {
    const metadata = userIds.length === 0 ? [] : await findMetadataOfUsers(this.deps.pool, userIds);
    return userIds.map((userId, index) => ({ userId, metadata: metadata[index] }));
  }

  async update(userId: string, metadataUpdate: Metadata): Promise<Metadata> {
    return mergeUserMetadata(this.deps.pool, userId, JSON.stringify(metadataUpdate));
  }

  async remove(userId: string): Promise<void> {
    await deleteUserMetadata(this.deps.pool, [userId]);
  }
}
