/**
 * One error type for conditions a caller handles: a string `code` and JSON `data`.
 * Subclasses exist only where they add fields (see `lib/llm` for `ProviderError`).
 */
export class SynError extends Error {
  readonly code: string;
  readonly data: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    data: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "SynError";
    this.code = code;
    this.data = data;
  }

  toJSON(): { code: string; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** Bad user input: the CLI prints a one-line hint and exits 2. */
export class UsageError extends SynError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super("usage", message, data);
    this.name = "UsageError";
  }
}

/** The message of any thrown value, never its stack. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
