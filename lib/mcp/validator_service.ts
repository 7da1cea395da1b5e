import {
  copyOwn,
  errorMessage,
  isRecord,
  joinEndpoint,
  publicEndpoint,
  readStreamCapped,
  redactText,
  redactValue,
  secretsFromUrl,
  SynError,
} from "../core/mod.ts";
import { diff } from "../patch/mod.ts";
import { RPC_ERROR, RpcError } from "../rpc/mod.ts";
import type { JsonSchemaValidator, SchemaStore, ValidationIssue } from "../schema/mod.ts";
import {
  parameterSchemaOf,
  requiredOf,
  TOOL_DEFINITIONS,
  type ToolDefinition,
} from "./tool_definitions.ts";
import { PAYLOAD_TOO_LARGE_RESULT, type ToolResult } from "./tool_result.ts";

/**
 * The schema layer (the tools' argument validators), loaded at a service's first call that
 * needs it, so that `generate` imports this package without it before it spawns its
 * validator child: ~2.5 ms off the child's start (docs/performance.md). By a computed
 * specifier, as in `_late_modules.ts`: for a literal `import()` `deno run` would read its
 * graph before every start.
 */
function importSchema(): Promise<typeof import("../schema/mod.ts")> {
  return import(new URL("../schema/mod.ts", import.meta.url).href);
}

/** Where `populate_backend` posts assets; absent = backend disabled (MCP spec §2). */
export interface BackendOptions {
  /** `SYN_BACKEND_URL`. */
  url: string;
  /** `SYN_BACKEND_ASSETS_PATH`, default `/synesthetic-assets/`. */
  assetsPath?: string;
  /** The `fetch` to post with; the global one by default. */
  fetch?: typeof fetch;
  /** Default 5,000 ms (MCP spec §2: 5 s, no retries). */
  timeoutMs?: number;
}

/** Options of {@linkcode ValidatorService}. */
export interface ValidatorServiceOptions {
  store: SchemaStore;
  backend?: BackendOptions;
  /** Receives diagnostic lines (stderr in the CLI). */
  log?: (line: string) => void;
  /**
   * Test hook: every tool call waits this long first, logging `mcp:delay method=<name>` as it
   * starts to wait (set by `tests/fakes/delayed_mcp_serve.ts`, for the shutdown tests, which
   * signal the server once a call is in flight).
   */
  delayMs?: number;
}

/**
 * The most characters of paths a `diff_assets` patch may carry: 8× the 1 MiB request cap.
 * Paths repeat their parents' keys, so without it a deep request of under 1 MiB would
 * need gigabytes of patch.
 */
export const MAX_PATCH_PATH_CHARS = 8 * 1024 * 1024;

const DEFAULT_ASSETS_PATH = "/synesthetic-assets/";
const MAX_BACKEND_REPLY_BYTES = 1024 * 1024;

/**
 * The validator service's tools (MCP spec §4–§6, §9) as plain async functions over a
 * loaded `SchemaStore`: `list_schemas`, `get_schema`, `list_examples`, `get_example`,
 * `validate_asset` (and its deprecated alias `validate`), `diff_assets`,
 * `populate_backend`. Stateless apart from the store; reads nothing global.
 */
export class ValidatorService {
  readonly #store: SchemaStore;
  readonly #backend: BackendOptions | undefined;
  readonly #log: (line: string) => void;
  readonly #delayMs: number;
  #storeReady = false;
  readonly #tools: Record<string, (params: Record<string, unknown>) => Promise<ToolResult>>;

  constructor(options: ValidatorServiceOptions) {
    this.#store = options.store;
    this.#backend = options.backend;
    this.#log = options.log ?? (() => {});
    this.#delayMs = options.delayMs ?? 0;
    this.#tools = {
      list_schemas: () => Promise.resolve(this.listSchemas()),
      get_schema: (params) => Promise.resolve(this.getSchema(params)),
      list_examples: (params) => Promise.resolve(this.listExamples(params)),
      get_example: (params) => Promise.resolve(this.getExample(params)),
      validate_asset: (params) => Promise.resolve(this.validateAsset(params)),
      validate: (params) => {
        // Upstream logs the same marker for its deprecated alias.
        this.#log("mcp:warn method=validate reason=deprecated_alias use=validate_asset");
        return Promise.resolve(this.validateAsset(params));
      },
      diff_assets: (params) => this.diffAssets(params),
      populate_backend: (params) => this.populateBackend(params),
    };
  }

  /** The schema store the tools read. */
  get store(): SchemaStore {
    return this.#store;
  }

  /** The tools as MCP describes them (the alias `validate` is not listed). */
  get definitions(): readonly ToolDefinition[] {
    return TOOL_DEFINITIONS;
  }

  /** True for a tool name, including the alias `validate`. */
  has(name: string): boolean {
    return Object.hasOwn(this.#tools, name);
  }

  /**
   * Runs a tool. Throws `RpcError` -32601 for an unknown tool and -32602 for bad
   * parameters; tool-level failures are results with `ok: false`.
   */
  async call(name: string, params: unknown): Promise<ToolResult> {
    if (!this.has(name)) throw new RpcError(RPC_ERROR.methodNotFound, `Method not found: ${name}`);
    if (params === undefined || params === null) params = {};
    if (typeof params !== "object" || Array.isArray(params)) {
      throw new RpcError(
        RPC_ERROR.invalidParams,
        "Invalid params: expected an object of named parameters",
      );
    }
    const checked = await checkParameters(name, params as Record<string, unknown>);
    if (this.#delayMs > 0) {
      this.#log(`mcp:delay method=${name} ms=${this.#delayMs}`);
      await new Promise((resolve) => setTimeout(resolve, this.#delayMs));
    }
    // A store loaded with deferCompile finishes compiling its validators here, once.
    if (!this.#storeReady) {
      await this.#store.ready();
      this.#storeReady = true;
    }
    return await this.#tools[name](checked);
  }

  /** `list_schemas()` (sorted by name, version, path). */
  listSchemas(): ToolResult {
    return { ok: true, schemas: this.#store.listSchemas() };
  }

  /** `get_schema(name)`. */
  getSchema(params: Record<string, unknown>): ToolResult {
    const found = this.#store.getSchema(params.name as string);
    if (!found) return { ok: false, reason: "not_found" };
    return { ok: true, schema: found.schema, version: found.version };
  }

  /** `list_examples(component | "all")` (sorted by component, path). */
  listExamples(params: Record<string, unknown>): ToolResult {
    const component = params.component as string | undefined ?? "all";
    return {
      ok: true,
      examples: this.#store.listExamples(component === "all" ? undefined : component),
    };
  }

  /** `get_example(path)`: `validated` is checked now, against the returned `schema`. */
  getExample(params: Record<string, unknown>): ToolResult {
    const found = this.#store.getExample(params.path as string);
    if (!found) return { ok: false, reason: "not_found" };
    const validated = this.#store.hasSchema(found.schema) &&
      this.#store.validate(found.example, found.schema).ok;
    return { ok: true, example: found.example, schema: found.schema, validated };
  }

  /**
   * `validate_asset(asset, schema)`. The schema is required (MCP spec §4): without it the
   * answer is a validation failure that says so; an unknown schema is `not_found`.
   */
  validateAsset(params: Record<string, unknown>): ToolResult {
    const schema = params.schema as string | undefined;
    if (schema === undefined || schema === "") {
      return {
        ok: false,
        reason: "validation_failed",
        errors: [{ path: "", msg: "schema is required" }],
      };
    }
    return this.#validate(params.asset, schema);
  }

  /**
   * `diff_assets(base, new)`: RFC 6902 `add`/`remove`/`replace`, deterministic. A patch
   * over `MAX_PATCH_PATH_CHARS` is refused with the payload-too-large result.
   */
  diffAssets(params: Record<string, unknown>): Promise<ToolResult> {
    try {
      const patch = diff(params.base, params.new, { maxPathChars: MAX_PATCH_PATH_CHARS });
      return Promise.resolve({ ok: true, patch });
    } catch (error) {
      if (!(error instanceof SynError) || error.code !== "payload_too_large") {
        return Promise.reject(error);
      }
      return Promise.resolve({
        ...structuredClone(PAYLOAD_TOO_LARGE_RESULT),
        detail: `the patch would carry more than ${MAX_PATCH_PATH_CHARS} characters of paths`,
      });
    }
  }

  /**
   * `populate_backend(asset, validate_first = true)`: posts the asset to the backend.
   * Disabled without `SYN_BACKEND_URL`; an invalid asset is never posted while
   * `validate_first` holds (MCP spec §1: assets are validated before persistence).
   */
  async populateBackend(params: Record<string, unknown>): Promise<ToolResult> {
    const validateFirst = params.validate_first as boolean | undefined ?? true;
    const schemaParam = params.schema as string | undefined;
    if (!this.#backend) return { ok: false, reason: "unsupported", detail: "backend disabled" };
    const asset = params.asset;
    if (validateFirst) {
      const schema = schemaParam ?? this.#store.schemaFromMarker(asset) ?? "synesthetic-asset";
      const verdict = this.#validate(asset, schema);
      if (!verdict.ok) return verdict;
    }
    // The URL's userinfo is a secret like an API key: a backend may echo it back (its
    // Basic credentials in an error detail), so nothing it says leaves unmasked.
    const secrets = secretsFromUrl(this.#backend.url);
    const log = (line: string) => this.#log(redactText(line, secrets));
    return redactValue(await postAsset(this.#backend, asset, log), secrets);
  }

  #validate(asset: unknown, schema: string): ToolResult {
    if (!this.#store.hasSchema(schema)) {
      // The spec's validate_asset knows one failure reason; the message names the cause.
      return {
        ok: false,
        reason: "validation_failed",
        errors: [{ path: "", msg: `unknown schema: ${schema}` }],
      };
    }
    const result = this.#store.validate(asset, schema);
    return result.ok
      ? { ok: true, errors: [] }
      : { ok: false, reason: "validation_failed", errors: result.errors };
  }
}

/**
 * Joins the base URL and the assets path the way an HTTP client with a base URL does; a
 * query on the base URL (`?token=…`) stays a query, after the path.
 */
export function backendAssetsUrl(url: string, assetsPath = DEFAULT_ASSETS_PATH): string {
  return joinEndpoint(url, assetsPath);
}

/** Redirects followed at most, and only to the same origin (the body goes along). */
const MAX_BACKEND_REDIRECTS = 3;

async function postAsset(
  backend: BackendOptions,
  asset: unknown,
  log: (line: string) => void,
): Promise<ToolResult> {
  const target = backendAssetsUrl(backend.url, backend.assetsPath);
  const fetchImpl = backend.fetch ?? fetch;
  const timeoutMs = backend.timeoutMs ?? 5_000;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let status: number;
  let body: string;
  try {
    let url = target;
    let response: Response;
    for (let hops = 0;; hops++) {
      response = await fetchImpl(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(asset),
        signal: controller.signal,
        // Redirects are decided here: the asset must never be re-posted to another host.
        redirect: "manual",
      });
      const location = response.headers.get("location");
      if (![301, 302, 303, 307, 308].includes(response.status) || !location) break;
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== new URL(url).origin || hops >= MAX_BACKEND_REDIRECTS) {
        log(`mcp:backend_error detail=redirect_refused to=${JSON.stringify(next.origin)}`);
        return {
          ok: false,
          reason: "backend_error",
          status: response.status,
          detail: `backend redirected to ${next.origin}; not followed`,
        };
      }
      url = next.href;
    }
    status = response.status;
    body = await readCapped(response, MAX_BACKEND_REPLY_BYTES);
  } catch (error) {
    if (controller.signal.aborted) {
      log(`mcp:backend_error detail=timeout url=${redactText(publicUrl(target))}`);
      return { ok: false, reason: "backend_error", status: 504, detail: "timeout" };
    }
    log(`mcp:backend_error detail=${JSON.stringify(redactText(errorMessage(error)))}`);
    // MCP spec §6: the network error shape.
    return { ok: false, reason: "backend_error", status: 503, detail: "network_unreachable" };
  } finally {
    clearTimeout(timer);
  }
  let reply: unknown;
  try {
    reply = body === "" ? undefined : JSON.parse(body);
  } catch {
    reply = undefined;
  }
  if (status < 200 || status > 299) {
    return { ok: false, reason: "backend_error", status, detail: errorDetail(reply, body, status) };
  }
  const assetId = idFrom(reply);
  if (assetId === undefined) {
    return {
      ok: false,
      reason: "backend_error",
      status,
      detail: "backend reply has no id, asset_id or uuid",
    };
  }
  return { ok: true, asset_id: assetId, backend_url: publicUrl(target) };
}

/** The URL as a caller or a log line may see it (see core `publicEndpoint`). */
const publicUrl = publicEndpoint;

function idFrom(reply: unknown): string | undefined {
  if (reply === null || typeof reply !== "object" || Array.isArray(reply)) return undefined;
  const record = reply as Record<string, unknown>;
  for (const key of ["id", "asset_id", "uuid"]) {
    const value = record[key];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
  }
  return undefined;
}

function errorDetail(reply: unknown, body: string, status: number): string {
  if (isRecord(reply)) {
    const detail = reply.detail ?? reply.error ?? reply.message;
    if (typeof detail === "string" && detail !== "") return detail.slice(0, 500);
    if (detail !== undefined) return JSON.stringify(detail).slice(0, 500);
  }
  const text = body.trim();
  return text === "" ? `HTTP ${status}` : text.slice(0, 500);
}

/** The body as text, or "" when there is none or it is over `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  try {
    const bytes = await readStreamCapped(
      response.body,
      { maxBytes, tooLarge: () => new RangeError("too large") },
    );
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (error instanceof RangeError) return "";
    throw error;
  }
}

const DEFINITIONS = new Map(TOOL_DEFINITIONS.map((definition) => [definition.name, definition]));

/** The alias `validate` takes `validate_asset`'s arguments. */
function definitionOf(name: string): ToolDefinition | undefined {
  return DEFINITIONS.get(name === "validate" ? "validate_asset" : name);
}

/** What checking a tool's arguments takes, worked out once per process. */
interface ParameterCheck {
  required: readonly string[];
  /** The `inputSchema`'s validator, compiled through `lib/schema`. */
  validator: Promise<JsonSchemaValidator>;
  /** The same once compiled: later calls use it without waiting a turn for the promise. */
  compiled?: JsonSchemaValidator;
}

const parameterChecks = new Map<string, ParameterCheck>();

function parameterCheckOf(definition: ToolDefinition): ParameterCheck {
  let check = parameterChecks.get(definition.name);
  if (!check) {
    const made: ParameterCheck = {
      required: requiredOf(definition),
      validator: importSchema().then(({ compileJsonSchema }) =>
        compileJsonSchema(parameterSchemaOf(definition))
      ),
    };
    made.validator.then((validator) => (made.compiled = validator), () => {});
    parameterChecks.set(definition.name, check = made);
  }
  return check;
}

/**
 * The tool's arguments checked against its `inputSchema` (`tool_definitions.ts`), the one
 * description of them that clients also read. A `null` optional argument counts as absent,
 * as the reference adapter reads it. Throws `RpcError` -32602 whose `data.errors` are the
 * problems as RFC 6901 pointers into `params`.
 */
async function checkParameters(
  name: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const definition = definitionOf(name);
  if (!definition) return params;
  const { required, validator, compiled } = parameterCheckOf(definition);
  const checked = copyOwn(params, (key) => params[key] === null && !required.includes(key));
  const verdict = (compiled ?? await validator)(checked);
  if (!verdict.ok) {
    throw new RpcError(RPC_ERROR.invalidParams, invalidParamsMessage(verdict.errors), {
      errors: verdict.errors,
    });
  }
  return checked;
}

/** `Invalid params: /name must be string; must have required property 'path'`. */
function invalidParamsMessage(errors: readonly ValidationIssue[]): string {
  const problems = errors.map((error) => error.path ? `${error.path} ${error.msg}` : error.msg);
  return `Invalid params: ${problems.join("; ")}`;
}
