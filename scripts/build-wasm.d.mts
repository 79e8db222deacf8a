export const sourcePath: string;
export const modulePath: string;
export function compileShaCrypt(): Promise<Buffer>;
export function renderModule(binary: Buffer): string;
