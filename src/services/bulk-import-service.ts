import type { ServiceDependencies } from './services.js';

export class BulkImportService {
  constructor(private readonly deps: ServiceDependencies) {}

  // Stops the background job; called before the pool closes.
  async stop(): Promise<void> {}
}
