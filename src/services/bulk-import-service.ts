import type { ServiceDependencies } from './services.js';

export class BulkImportService {
  constructor(private readonly deps: ServiceDependencies) {}
}
