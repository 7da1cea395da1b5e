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
  /**
   * The number of calls the caller will make, when it knows (a one-shot command makes
   * one): once that many have been answered the connection starts closing, so a stdio
   * child exits while the caller finishes its own work. `close()` still waits for it.
   */
  closeAfter?: number;
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
  const { closeAfter, ...connect } = options;
  return countCalls(await connectValidator({ ...connect, warn }), closeAfter);
}

/**
 * Wraps a client so that `calls` tells how many requests went through it. With
 * `closeAfter`, the client starts closing once that many calls have settled; a call past
 * that number gets the answer of a closed connection (`transport_error`).
 */
export function countCalls(client: ValidatorClient, closeAfter?: number): CountedValidator {
  let calls = 0;
  let settled = 0;
  const counted = <T>(answer: Promise<T>): Promise<T> => {
    if (closeAfter === undefined) return answer;
    return answer.finally(() => {
      // The caller's own close() returns this same promise and sees how it ended.
      if (++settled === closeAfter) client.close().catch(() => {});
    });
  };
  return {
    get transport() {
      return client.transport;
    },
    get calls() {
      return calls;
    },
    call(method, params) {
      calls++;
      return counted(client.call(method, params));
    },
    validateAsset(asset, schema) {
      calls++;
      return counted(client.validateAsset(asset, schema));
    },
    close: () => client.close(),
  };
}
