import type { ServiceDependencies } from './services.js';

export class UserIdMappingService {
  constructor(private readonly deps: ServiceDependencies) {}
}
