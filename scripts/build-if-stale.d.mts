export function staleReason(root: string): string | undefined;
export function buildIfStale(root: string): void;
