/**
 * @module
 * syn as a library: validate Synesthetic assets against the embedded schema set, diff and
 * patch JSON documents (RFC 6902), make and normalize assets with the deterministic engine,
 * reach or run the validator service, and call a language model through one interface.
 * Nothing happens on import. The CLI itself lives in `main.ts`; each folder under `lib/`
 * has a `mod.ts` of its own for what the capabilities share with each other.
 *
 * ```ts
 * import { diff, generateDeterministic, loadSchemaStore, normalizeAsset } from "./mod.ts";
 * const store = await loadSchemaStore();
 * const asset = normalizeAsset(generateDeterministic("a calm blue ocean", { seed: 7 }));
 * store.validate(asset, "synesthetic-asset"); // { ok: true, errors: [] }
 * diff({ a: 1 }, { a: 2 }); // [{ op: "replace", path: "/a", value: 2 }]
 * ```
 */
export {
  canonicalJson,
  formatPointer,
  loadConfig,
  parseJson,
  parsePointer,
  resolvePointer,
  type SynConfig,
  SynError,
  VERSION,
} from "./lib/core/mod.ts";
export {
  compileJsonSchema,
  type ExampleEntry,
  type JsonSchemaValidator,
  loadSchemaStore,
  type LoadSchemaStoreOptions,
  type SchemaEntry,
  type SchemaStore,
  type ValidationIssue,
  type ValidationResult,
} from "./lib/schema/mod.ts";
export {
  apply,
  diff,
  type DiffOperation,
  PatchError,
  type PatchOperation,
  validatePatch,
} from "./lib/patch/mod.ts";
export {
  canonicalBaseline,
  critiqueAsset,
  type DeterministicOptions,
  generateDeterministic,
  normalizeAsset,
  type NormalizeOptions,
  preflightAsset,
  type PreflightIssue,
  type SynestheticAsset,
} from "./lib/generate/mod.ts";
export {
  connectValidator,
  type ConnectValidatorOptions,
  createValidatorHandler,
  type RunningValidatorServer,
  startValidatorServer,
  type ValidatorClient,
  validatorClientFromConnection,
  type ValidatorEndpoint,
  ValidatorService,
  type ValidatorServiceOptions,
  type ValidatorVerdict,
} from "./lib/mcp/mod.ts";
export { createMemoryConnectionPair, type RpcConnection } from "./lib/rpc/mod.ts";
export {
  type ChatMessage,
  createLanguageModel,
  type GenerateRequest,
  type GenerateResult,
  type LanguageModel,
  mockLanguageModel,
  type ModelConfig,
  ProviderError,
  resolveModelConfig,
  type StreamEvent,
  type StreamRequest,
} from "./lib/llm/mod.ts";
