/**
 * @module
 * Pure building blocks every other module uses: errors, RFC 6901 JSON Pointers,
 * canonical JSON and hashing, redaction, backoff, an injectable clock, JSON parsing
 * with line/column errors, and JSONL files.
 *
 * ```ts
 * import { canonicalJson, formatPointer } from "./mod.ts";
 * canonicalJson({ b: 1, a: [true] }); // '{"a":[true],"b":1}'
 * formatPointer(["a/b", 0]); // "/a~1b/0"
 * ```
 */
export { errorMessage, SynError, UsageError } from "./errors.ts";
export {
  escapePointerToken,
  formatPointer,
  isArrayIndexToken,
  parsePointer,
  resolvePointer,
  unescapePointerToken,
} from "./json_pointer.ts";
export { canonicalJson, responseHash, sha256Hex } from "./canonical_json.ts";
export { compareCodePoints, compareIssues } from "./compare_code_points.ts";
export { copyOwn, isRecord, type JsonRecord, setOwn } from "./json_object.ts";
export { formatBytes } from "./format_bytes.ts";
export { stripJsonc } from "./jsonc.ts";
export { endpointPathOf, joinEndpoint, publicEndpoint } from "./endpoint_url.ts";
export { concatBytes, readStreamCapped } from "./read_capped.ts";
export { type ByteReader, byteReader } from "./byte_reader.ts";
export { utf8ByteLength } from "./utf8_byte_length.ts";
export { REDACTED, redactText, redactValue, SECRET_ENV_NAMES, secretsFromEnv } from "./redact.ts";
export { type Clock, FakeClock, systemClock, systemTimers, type Timers } from "./clock.ts";
export { backoffDelay, type BackoffOptions, LABS_BACKOFF } from "./backoff.ts";
export { lineColumnAt, parseJson } from "./parse_json.ts";
export {
  appendJsonl,
  appendJsonlLines,
  readJsonl,
  type StagedFile,
  stageFile,
  sweepTemporaries,
  writeFileAtomic,
} from "./jsonl.ts";
export { VERSION } from "./version.ts";
export { neutralizeTerminalText } from "./neutralize_terminal_text.ts";
export { type ByteSink, SerialWriter, type SerialWriterStats } from "./serial_writer.ts";
export { MAX_DOT_ENV_BYTES, parseDotEnv } from "./dot_env.ts";
export {
  constantTimeEqual,
  hostnameOfHost,
  isLoopbackHostname,
  LOOPBACK_HOSTS,
  newServerToken,
  ServerEdge,
  type ServerEdgeOptions,
  type TokenChannel,
} from "./server_edge.ts";
export {
  DEFAULT_MAX_REQUESTS,
  DEFAULT_MAX_REQUESTS_PER_PEER,
  type LocalServer,
  serveLocal,
  type ServeLocalOptions,
} from "./serve_local.ts";
export { ConnectionLimit, type ConnectionLimitOptions } from "./connection_limit.ts";
