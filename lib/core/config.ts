import { MIN_SECRET_CHARS, secretsFromUrl } from "./redact.ts";

/**
 * Every environment variable syn reads, in one table: the configuration is built from it
 * once, at start (`main.ts`: environment, then `.env`), and handed down as a frozen
 * {@linkcode SynConfig}; nothing below `main.ts` reads the environment. `.env.sample`,
 * `docs/configuration.md` and the redaction of secrets follow this table (tests keep them
 * in sync).
 */
export interface ConfigVariable {
  readonly name: string;
  /** What it is, one sentence. */
  readonly about: string;
  /** The values it takes, in words. */
  readonly type: string;
  /** What unset (or empty) means. */
  readonly default: string;
  /** `value`: the value is a secret; `credentials`: a URL whose user and password are. */
  readonly secret: false | "value" | "credentials";
  /** The commands that read it. */
  readonly commands: readonly string[];
  /** The system's own variable (where programs are, Deno's cache): not in `.env.sample`. */
  readonly system?: true;
}

const VALIDATOR_ENDS = ["mcp-serve", "generate", "critique", "patch"];
const PROVIDER_USERS = ["generate", "critique", "patch", "chat", "synthesize"];

function variable(
  name: string,
  type: string,
  defaultText: string,
  commands: readonly string[],
  about: string,
  secret: ConfigVariable["secret"] = false,
): ConfigVariable {
  return { name, about, type, default: defaultText, secret, commands };
}

/** The table: every variable syn reads. */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = Object.freeze([
  variable("SYN_SCHEMAS_DIR", "path", "the embedded schemas", [
    "mcp-serve",
    "validate",
    "schemas",
    "examples",
    "generate",
    "preview",
  ], "Folder of `*.schema.json` files that replaces the embedded schema set."),
  variable("SYN_EXAMPLES_DIR", "path", "the embedded examples", [
    "mcp-serve",
    "examples",
    "generate",
  ], "Folder of example assets that replaces the embedded examples."),
  variable(
    "MCP_ENDPOINT",
    "stdio | tcp | socket",
    "stdio (generate: its own mcp-serve child)",
    VALIDATOR_ENDS,
    "Transport of the validator service; any other value means tcp, with a warning.",
  ),
  variable(
    "MCP_HOST",
    "host name or address",
    "127.0.0.1",
    VALIDATOR_ENDS,
    "TCP host of the validator.",
  ),
  variable(
    "MCP_PORT",
    "0–65535 (server; 0 = any free port), 1–65535 (client)",
    "none (required for tcp)",
    VALIDATOR_ENDS,
    "TCP port of the validator.",
  ),
  variable(
    "MCP_SOCKET_PATH",
    "path",
    "none (required for socket)",
    VALIDATOR_ENDS,
    "Unix socket of the validator.",
  ),
  variable(
    "MCP_ADAPTER_CMD",
    "command line",
    "syn's own mcp-serve --stdio",
    ["generate", "critique", "patch"],
    "Another stdio validator to start, split into words like a shell without expansion.",
  ),
  variable(
    "MCP_READY_FILE",
    "path",
    "/tmp/mcp.ready (generate's own child: a file of its own)",
    VALIDATOR_ENDS,
    "Ready file mcp-serve writes (`<pid> <ISO8601>`) and removes on exit.",
  ),
  variable(
    "SYN_BACKEND_URL",
    "http(s) URL",
    "none: populate_backend is disabled",
    ["mcp-serve", "generate"],
    "Backend that populate_backend posts to; user and password in it are sent as basic auth.",
    "credentials",
  ),
  variable(
    "SYN_BACKEND_ASSETS_PATH",
    "URL path",
    "/synesthetic-assets/",
    ["mcp-serve", "generate"],
    "Path under SYN_BACKEND_URL that populate_backend posts to.",
  ),
  variable(
    "SYN_SERVER_TOKEN",
    "32 or more printable characters, no spaces",
    "a fresh 256-bit token at each start",
    ["mcp-serve", "chat"],
    "Bearer token of the local servers (mcp-serve --http, chat serve).",
    "value",
  ),
  variable(
    "LABS_FAIL_FAST",
    "1 | 0 (true/false, yes/no, on/off, strict/relaxed)",
    "1 (strict)",
    ["generate"],
    "Strict: a validation failure exits 1; relaxed: a warning. --strict/--relaxed win.",
  ),
  variable(
    "LABS_LOG_DIR",
    "path",
    "meta/output/labs",
    ["generate", "critique", "patch"],
    "Root of the Labs logs (generator/external/critic/patches.jsonl). --log-dir wins.",
  ),
  variable(
    "LABS_OUTPUT_DIR",
    "path",
    "meta/output/assets",
    ["generate"],
    "Folder valid generated assets are written to. --out wins.",
  ),
  variable(
    "LABS_SOCKET_TESTS",
    "1 | 0",
    "0: run where Unix sockets work, skipped with a message elsewhere",
    ["deno task test"],
    "Socket tests (Labs spec): 1 = the Unix socket transport tests must run, and fail where none can be made.",
  ),
  variable(
    "LABS_EXTERNAL_LIVE",
    "1 | anything else",
    "mock mode",
    PROVIDER_USERS,
    "1 = live calls to a provider whose key is set; anything else = canned mock answers.",
  ),
  ...providerVariables("OPENAI", "https://api.openai.com/v1", "gpt-4o-mini"),
  variable(
    "OPENAI_TEMPERATURE",
    "number 0–2",
    "the provider's",
    PROVIDER_USERS,
    "Default OpenAI temperature. --temperature wins.",
  ),
  ...providerVariables(
    "GEMINI",
    "https://generativelanguage.googleapis.com/v1beta",
    "gemini-2.0-flash",
  ),
  ...providerVariables("ANTHROPIC", "https://api.anthropic.com", "claude-sonnet-4-5"),
  variable(
    "SYN_STATE_DIR",
    "path",
    "tools, synthesize: .syn; chat: none (nothing saved)",
    ["tools", "synthesize", "chat"],
    "State folder: http cache, chat sessions, traces and memory, synthesis state. --state-dir wins.",
  ),
  variable(
    "SYN_EVENT_STORE",
    "sqlite | postgres:// URL",
    "SQLite in the state folder (events.sqlite)",
    ["synthesize"],
    "Where tool events are kept.",
    "credentials",
  ),
  variable(
    "SYN_CHAT_KEY",
    "text",
    "a key made once in the config folder: <config>/syn/chat.key",
    ["chat"],
    "Secret that encrypts chat checkpoints and memory at rest (AES-GCM).",
    "value",
  ),
  variable(
    "SYN_CHAT_MEMORY_SCOPE",
    "all_sessions | empty",
    "a session retrieves only its own turns",
    ["chat"],
    "all_sessions: memory retrieval sees every session's past turns.",
  ),
  variable(
    "SYN_CHROMIUM",
    "path",
    "the usual install paths",
    ["preview"],
    "The Chromium or Chrome binary that draws stills (preview --png).",
  ),
  {
    ...variable("PATH", "paths", "", ["tools", "chat"], "Where bwrap is looked for."),
    system: true,
  },
  {
    ...variable(
      "DENO_DIR",
      "path",
      "",
      ["generate", "critique", "patch"],
      "Deno's cache, passed on to the validator child syn starts.",
    ),
    system: true,
  },
  {
    ...variable(
      "XDG_CONFIG_HOME",
      "absolute path",
      "HOME/.config",
      ["chat"],
      "The user's config folder: the chat key is made in <config>/syn/chat.key.",
    ),
    system: true,
  },
  {
    ...variable(
      "HOME",
      "path",
      "",
      ["chat"],
      "The user's home: its .config is the config folder when XDG_CONFIG_HOME is unset.",
    ),
    system: true,
  },
  ...["TMPDIR", "TMP", "TEMP"].map((name) => ({
    ...variable(
      name,
      "path",
      "/tmp",
      ["generate", "critique", "patch"],
      "Where temporary files go (the first set, as os.tmpdir() reads them): the validator child's ready file.",
    ),
    system: true as const,
  })),
]);

function providerVariables(prefix: string, endpoint: string, model: string): ConfigVariable[] {
  const label = prefix.charAt(0) + prefix.slice(1).toLowerCase();
  return [
    variable(
      `${prefix}_API_KEY`,
      "text",
      "none (mock mode only)",
      PROVIDER_USERS,
      `${label} API key, for live mode; never accepted as a flag.`,
      "value",
    ),
    variable(
      `${prefix}_ENDPOINT`,
      "http(s) URL",
      endpoint,
      PROVIDER_USERS,
      `${label} base URL. --endpoint wins.`,
    ),
    variable(`${prefix}_MODEL`, "model id", model, PROVIDER_USERS, `${label} model. --model wins.`),
  ];
}

/** The settings of the validator transport, as given (parsed by the end that uses them). */
export interface McpSettings {
  readonly endpoint?: string;
  readonly host?: string;
  readonly port?: string;
  readonly socketPath?: string;
  readonly adapterCommand?: string;
  readonly readyFile?: string;
}

/** One provider's settings. */
export interface ProviderSettings {
  readonly apiKey?: string;
  readonly endpoint?: string;
  readonly model?: string;
}

/**
 * The providers a user can name, in the order a chat's `--engine auto` tries their keys:
 * the one list every command's engine list is derived from (`lib/llm` re-exports it as
 * its own). Here, beside their settings, so that a command can name them without
 * loading the model layer.
 */
export const PROVIDERS = ["openai", "anthropic", "gemini", "openai-compatible"] as const;

/** The LLM layer's settings. */
export interface LlmSettings {
  /** `LABS_EXTERNAL_LIVE=1`. */
  readonly live: boolean;
  /** `OPENAI_TEMPERATURE` as given (checked where it is used). */
  readonly openaiTemperature?: string;
  readonly openai: ProviderSettings;
  readonly gemini: ProviderSettings;
  readonly anthropic: ProviderSettings;
}

/**
 * The configuration, built once from the table. A value that is unset, empty or only
 * spaces is `undefined` (copying `.env.sample` as it is changes nothing); others are
 * trimmed. Values whose checks depend on who uses them (a port, a temperature) stay text.
 */
export interface SynConfig {
  readonly schemasDir?: string;
  readonly examplesDir?: string;
  readonly mcp: McpSettings;
  readonly backend: { readonly url?: string; readonly assetsPath?: string };
  readonly serverToken?: string;
  readonly labs: {
    readonly failFast?: string;
    readonly logDir?: string;
    readonly outputDir?: string;
    /** `LABS_SOCKET_TESTS=1`: the socket transport tests must run (read by the test suite). */
    readonly socketTests: boolean;
  };
  readonly llm: LlmSettings;
  readonly stateDir?: string;
  readonly eventStore?: string;
  readonly chat: { readonly key?: string; readonly memoryAcrossSessions: boolean };
  readonly chromium?: string;
  readonly system: {
    readonly path?: string;
    readonly denoDir?: string;
    /** `TMPDIR`, else `TMP`, else `TEMP` (`os.tmpdir()`'s order); `/tmp` when none is set. */
    readonly tempDir?: string;
    /**
     * The user's config folder: `XDG_CONFIG_HOME` when it is absolute (the XDG rule: a
     * relative one is ignored), else `HOME/.config`; `undefined` when neither is set.
     */
    readonly configDir?: string;
  };
  /** The secret values of the table (and URL credentials), for redaction. */
  readonly secrets: readonly string[];
}

/** Names of the variables whose values are secrets (never passed to a child). */
export const SECRET_VARIABLE_NAMES: readonly string[] = Object.freeze(
  CONFIG_VARIABLES.filter((entry) => entry.secret === "value").map((entry) => entry.name),
);

/**
 * Builds the frozen configuration. `read` is asked once for each variable of the table
 * and for nothing else.
 */
export function loadConfig(read: (name: string) => string | undefined): SynConfig {
  const values = new Map<string, string>();
  for (const { name } of CONFIG_VARIABLES) {
    const value = read(name)?.trim();
    if (value) values.set(name, value);
  }
  const get = (name: string) => values.get(name);
  const provider = (prefix: string): ProviderSettings => ({
    apiKey: get(`${prefix}_API_KEY`),
    endpoint: get(`${prefix}_ENDPOINT`),
    model: get(`${prefix}_MODEL`),
  });
  return deepFreeze({
    schemasDir: get("SYN_SCHEMAS_DIR"),
    examplesDir: get("SYN_EXAMPLES_DIR"),
    mcp: {
      endpoint: get("MCP_ENDPOINT"),
      host: get("MCP_HOST"),
      port: get("MCP_PORT"),
      socketPath: get("MCP_SOCKET_PATH"),
      adapterCommand: get("MCP_ADAPTER_CMD"),
      readyFile: get("MCP_READY_FILE"),
    },
    backend: { url: get("SYN_BACKEND_URL"), assetsPath: get("SYN_BACKEND_ASSETS_PATH") },
    serverToken: get("SYN_SERVER_TOKEN"),
    labs: {
      failFast: get("LABS_FAIL_FAST"),
      logDir: get("LABS_LOG_DIR"),
      outputDir: get("LABS_OUTPUT_DIR"),
      socketTests: get("LABS_SOCKET_TESTS") === "1",
    },
    llm: {
      live: get("LABS_EXTERNAL_LIVE") === "1",
      openaiTemperature: get("OPENAI_TEMPERATURE"),
      openai: provider("OPENAI"),
      gemini: provider("GEMINI"),
      anthropic: provider("ANTHROPIC"),
    },
    stateDir: get("SYN_STATE_DIR"),
    eventStore: get("SYN_EVENT_STORE"),
    chat: {
      key: get("SYN_CHAT_KEY"),
      memoryAcrossSessions: get("SYN_CHAT_MEMORY_SCOPE") === "all_sessions",
    },
    chromium: get("SYN_CHROMIUM"),
    system: {
      path: get("PATH"),
      denoDir: get("DENO_DIR"),
      tempDir: get("TMPDIR") ?? get("TMP") ?? get("TEMP"),
      configDir: configFolder(get("XDG_CONFIG_HOME"), get("HOME")),
    },
    secrets: secretsOf(values),
  });
}

function configFolder(xdg: string | undefined, home: string | undefined): string | undefined {
  if (xdg?.startsWith("/")) return xdg;
  return home?.startsWith("/") ? `${home.replace(/\/+$/, "")}/.config` : undefined;
}

function secretsOf(values: ReadonlyMap<string, string>): string[] {
  const secrets: string[] = [];
  for (const entry of CONFIG_VARIABLES) {
    const value = values.get(entry.name);
    if (value === undefined) continue;
    if (entry.secret === "value" && value.length >= MIN_SECRET_CHARS) secrets.push(value);
    if (entry.secret === "credentials") secrets.push(...secretsFromUrl(value));
  }
  return secrets;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
