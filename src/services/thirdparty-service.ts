import type { ServiceDependencies } from './services.js';

export class ThirdPartyService {
  constructor(private readonly deps: ServiceDependencies) {}
}
