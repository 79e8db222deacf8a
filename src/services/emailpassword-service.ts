import type { ServiceDependencies } from './services.js';

export class EmailPasswordService {
  constructor(private readonly deps: ServiceDependencies) {}
}
