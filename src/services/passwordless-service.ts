import type { ServiceDependencies } from './services.js';

export class PasswordlessService {
  constructor(private readonly deps: ServiceDependencies) {}
}
