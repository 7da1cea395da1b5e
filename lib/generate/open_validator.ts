import { errorMessage, SynError } from "../core/mod.ts";
import { connectValidator, type ValidatorClient } from "../mcp/mod.ts";

/** A validator connection that counts the calls made through it. */
export interface CountedValidator extends ValidatorClient {
  /** Calls made so far (`validateAsset` and `call`). */
  readonly calls: number;
}

/** Options of {@linkcode openValidator}, passed on to `connectValidator`. */
export interface OpenValidatorOptions {
  env: (name: string) => string | undefined;
  selfCommand: readonly string[];
  warn: (line: string) => void;
  timeoutMs?: number;
}

/**
 * Connects to the validator service the environment selects (default: our own
 * `mcp-serve --stdio` child) and counts the calls. A connection that cannot be made
 * becomes a client whose every answer is a structured `transport_error`, so the run is
 * still logged; bad configuration (a `SynError`) is thrown as it is.
 */
export async function openValidator(options: OpenValidatorOptions): Promise<CountedValidator> {
  let client: ValidatorClient;
  // The child's own lifecycle lines (`mcp:ready`, `mcp:shutdown`) are not news to a user.
  const warn = (line: string) => {
    if (!/\bmcp:(ready|shutdown)\b/.test(line)) options.warn(line);
  };
  try {
    client = await connectValidator({ ...options, warn });
  } catch (error) {
    // connectValidator throws only for configuration that cannot work: say so, exit 2.
    if (error instanceof SynError) throw error;
    const detail = errorMessage(error);
    warn(`validator unavailable: ${detail}`);
    const failure = { ok: false, reason: "transport_error", detail };
    client = {
      transport: transportOf(options.env),
      call: () => Promise.resolve({ ...failure }),
      validateAsset: () => Promise.resolve({ ...failure }),
      close: () => Promise.resolve(),
    };
  }
  return countCalls(client);
}

/** Wraps a client so that `calls` tells how many requests went through it. */
export function countCalls(client: ValidatorClient): CountedValidator {
  let calls = 0;
  return {
    get transport() {
      return client.transport;
    },
    get calls() {
      return calls;
    },
    call(method, params) {
      calls++;
      return client.call(method, params);
    },
    validateAsset(asset, schema) {
      calls++;
      return client.validateAsset(asset, schema);
    },
    close: () => client.close(),
  };
}

function transportOf(env: (name: string) => string | undefined): ValidatorClient["transport"] {
  const endpoint = env("MCP_ENDPOINT")?.trim();
  if (endpoint === "stdio" || endpoint === "socket" || endpoint === "tcp") return endpoint;
  if (endpoint || env("MCP_HOST") || env("MCP_PORT")) return "tcp";
  return "stdio";
}
