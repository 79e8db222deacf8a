import type { ServiceDependencies } from './services.js';

export class UserService {
  constructor(private readonly deps: ServiceDependencies) {}
}
