import { connectValidator } from "./connect_validator.ts";
import type { ValidatorClient } from "./validator_client.ts";
import type { ValidatorConfig } from "./validator_target.ts";

/** A validator connection that counts the calls made through it. */
export interface CountedValidator extends ValidatorClient {
  /** Calls made so far (`validateAsset` and `call`). */
  readonly calls: number;
}

/** Options of {@linkcode openValidator}, passed on to `connectValidator`. */
export interface OpenValidatorOptions {
  config: ValidatorConfig;
  selfCommand: readonly string[];
  warn: (line: string) => void;
}

/**
 * Connects to the validator service the configuration selects (default: our own
 * `mcp-serve --stdio` child) and counts the calls. As with `connectValidator`, a
 * connection that cannot be made becomes a client whose every answer is a structured
 * `transport_error`, so the run is still logged; bad configuration is a thrown `SynError`.
 */
export async function openValidator(options: OpenValidatorOptions): Promise<CountedValidator> {
  // The child's own lifecycle lines (`mcp:ready`, `mcp:shutdown`) are not news to a user.
  const warn = (line: string) => {
    if (!/\bmcp:(ready|shutdown)\b/.test(line)) options.warn(line);
  };
  return countCalls(await connectValidator({ ...options, warn }));
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
