/** Where the command writes, and what it may read from its environment; tests pass their own. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Whether stderr is a terminal, which decides between a redrawn bar and plain lines. */
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C: the run stops after the request in flight and saves its position. */
  signal?: AbortSignal;
  now?: () => number;
  /** Standard input as text (the canary's password); tests pass their own. */
  readStdin?: () => Promise<string>;
}
