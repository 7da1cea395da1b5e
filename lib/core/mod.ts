/**
 * @module
 * The building blocks every other module uses. Pure: errors, RFC 6901 JSON Pointers,
 * canonical JSON and hashing, redaction, backoff, the injectable clock interface, JSON
 * parsing with line/column errors, file paths and `file:` URLs, terminal neutralisation, the server edge's checks
 * (`ServerEdge`). Edge files, named as such, for what every capability needs of the world
 * in the same way: append-only JSONL files (`jsonl.ts`), files and folders created private
 * (`private_files.ts`), `writeAll`, and `serveLocal` (`Deno.serve` behind the edge).
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
export { sha256 } from "./sha256.ts";
export { compareCodePoints, compareIssues } from "./compare_code_points.ts";
export { copyOwn, isRecord, type JsonRecord, setOwn } from "./json_object.ts";
export { formatBytes } from "./format_bytes.ts";
export {
  basenameOf,
  dirnameOf,
  extnameOf,
  fileUrlToPath,
  isAbsolutePath,
  joinPath,
  normalizePath,
  pathToFileUrl,
  relativePath,
  resolvePath,
} from "./file_path.ts";
export { endpointPathOf, joinEndpoint, publicEndpoint } from "./endpoint_url.ts";
export { type CapOptions, concatBytes, readStreamCapped } from "./read_capped.ts";
export { type LineRead, readLines, type ReadLinesOptions } from "./read_lines.ts";
export {
  type ByteReader,
  byteReader,
  type ByteReaderOptions,
  type ByteSource,
  isByteSource,
} from "./byte_reader.ts";
export { utf8ByteLength } from "./utf8_byte_length.ts";
export { REDACTED, redactText, redactValue, secretsFromUrl } from "./redact.ts";
export { isSecretName, maskSecretFields } from "./secret_names.ts";
export { mapBounded } from "./map_bounded.ts";
export {
  CONFIG_VARIABLES,
  type ConfigVariable,
  type LlmSettings,
  loadConfig,
  type McpSettings,
  PROVIDERS,
  type ProviderSettings,
  SECRET_VARIABLE_NAMES,
  type SynConfig,
} from "./config.ts";
export { ShellWordsError, splitShellWords } from "./shell_words.ts";
export { type Clock, startTimer, systemClock, systemTimers, type Timers } from "./clock.ts";
export { backoffDelay, type BackoffOptions, LABS_BACKOFF } from "./backoff.ts";
export { lineColumnAt, parseJson } from "./parse_json.ts";
export {
  appendJsonl,
  readJsonl,
  type StagedFile,
  stageFile,
  sweepTemporaries,
  writeFileAtomic,
} from "./jsonl.ts";
export { VERSION } from "./version.ts";
export { type ByteWriter, writeAll } from "./write_all.ts";
export { neutralizeTerminalText } from "./neutralize_terminal_text.ts";
export {
  ensurePrivateDirSync,
  ensurePrivateFileSync,
  preparePrivateSqliteFile,
} from "./private_files.ts";
export { type ByteSink, SerialWriter, type SerialWriterStats } from "./serial_writer.ts";
export {
  chooseServerToken,
  newServerToken,
  parseAllowedOrigin,
  ServerEdge,
  type ServerEdgeOptions,
  type ServerToken,
  type TokenChannel,
} from "./server_edge.ts";
export { type LocalServer, serveLocal, type ServeLocalOptions } from "./serve_local.ts";
export { ConnectionLimit, type ConnectionLimitOptions } from "./connection_limit.ts";
