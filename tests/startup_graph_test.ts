import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { denoInfo, type ModuleGraph, reachableModules } from "./fakes/module_graph.ts";

/**
 * What each start path loads, read from the module graph `deno info --json` gives (a
 * structural check: start-up time itself is measured by `scripts/bench_cold.ts`, never
 * asserted). Importing a module evaluates everything it imports statically, so a path
 * loads the static closure of its roots.
 */
const root = new URL("../", import.meta.url);
const COMMANDS_MODULE = new URL("lib/cli/commands.ts", root).href;

/** The graph `deno info` gives from one root file. */
function moduleGraphOf(path: string): Promise<ModuleGraph> {
  return denoInfo([path], fileURLToPath(root));
}

/**
 * The graphs of `main.ts` and of each command file named, merged. The command table
 * imports commands by computed specifiers, so `main.ts`'s own graph stops there.
 */
async function moduleGraph(paths: string[]): Promise<ModuleGraph> {
  const graphs = await Promise.all(["main.ts", ...paths].map(moduleGraphOf));
  return {
    modules: graphs.flatMap((graph) => graph.modules),
    redirects: Object.assign({}, ...graphs.map((graph) => graph.redirects)),
  };
}

/**
 * Every module reachable from `roots`. With `dynamic`, literal `import()` edges are
 * followed too (an over-approximation: everything the path could ever load), except the
 * command table's, which load the other commands.
 */
function reachable(graph: ModuleGraph, roots: string[], dynamic: boolean): Set<string> {
  return reachableModules(
    graph,
    roots.map((path) => new URL(path, root).href),
    (edge, from) => !edge.isDynamic || (dynamic && from !== COMMANDS_MODULE),
  );
}

/** Modules of capabilities and packages that a given path must never load. */
function forbidden(modules: Set<string>): string[] {
  const pattern =
    /\/lib\/(chat|synthesize|preview)\/|npm:\/?(postgres|playwright-core|@huggingface\/jinja)@/;
  return [...modules].filter((specifier) => pattern.test(specifier)).sort();
}

/** `node:` built-ins and `npm:` packages among the modules. */
function external(modules: Set<string>): string[] {
  return [...modules].filter((specifier) => /^(node|npm):/.test(specifier)).sort();
}

const graph = await moduleGraph(
  ["validate", "diff", "mcp_serve", "generate", "_generate_run", "chat", "preview", "tools"].map((
    name,
  ) => `lib/cli/${name}.ts`),
);

Deno.test("--version, validate and mcp-serve can never load chat, synthesize, preview, Postgres, playwright-core or Jinja", () => {
  for (const command of ["validate", "mcp_serve"]) {
    const modules = reachable(graph, ["main.ts", `lib/cli/${command}.ts`], true);
    assert.deepEqual(forbidden(modules), [], command);
  }
  assert.deepEqual(forbidden(reachable(graph, ["main.ts"], true)), [], "main.ts");
});

Deno.test("--version and --help load no node: built-in and no npm package", () => {
  assert.deepEqual(external(reachable(graph, ["main.ts"], false)), []);
});

Deno.test("validate, diff and the validator child (mcp-serve --stdio) load no node: built-in and no npm package before their first request", () => {
  // The modules these paths import when they answer: the schema store's code, the generated
  // validators and formats.
  const generated = [
    "lib/schema/_schema_store.ts",
    "lib/schema/_generated/embedded_validators.js",
    "lib/schema/_generated/embedded_formats.js",
    "lib/schema/_generated/precompiled_service_schemas.js",
    "lib/schema/_generated/precompiled_tool_schemas.js",
    "lib/schema/_generated/precompiled_record_schemas.js",
  ];
  for (const command of ["validate", "diff", "mcp_serve"]) {
    const modules = reachable(graph, ["main.ts", `lib/cli/${command}.ts`, ...generated], false);
    assert.deepEqual(external(modules), [], command);
  }
});

Deno.test("generate's own process loads no node: built-in and no npm package for a deterministic run", () => {
  // generate.ts starts the validator child, then loads its body by a computed specifier.
  const roots = ["main.ts", "lib/cli/generate.ts", "lib/cli/_generate_run.ts"];
  assert.deepEqual(external(reachable(graph, roots, false)), []);
});

Deno.test("generate starts its validator child before it loads the schema layer", () => {
  // The child's start is the critical path of a one-shot generate: what generate.ts loads
  // before it spawns the child delays everything. The validator client does not need the
  // schema layer; the service loads it at its first call that does.
  const modules = reachable(graph, ["main.ts", "lib/cli/generate.ts"], true);
  const layers = [...modules].filter((specifier) => /\/lib\/schema\//.test(specifier));
  assert.deepEqual(layers, []);
  // …and the check sees those layers where a path does load them.
  const body = reachable(graph, ["lib/cli/_generate_run.ts"], false);
  assert.ok([...body].some((specifier) => specifier.includes("/lib/schema/")));
});

Deno.test("a deterministic generate loads no model code: lib/llm loads when a provider engine is asked for", () => {
  const roots = ["main.ts", "lib/cli/generate.ts", "lib/cli/_generate_run.ts"];
  const modules = [...reachable(graph, roots, true)];
  assert.deepEqual(modules.filter((specifier) => specifier.includes("/lib/llm/")), []);
  // …and the check sees lib/llm where a path does load it (chat imports it statically).
  const chat = reachable(graph, ["lib/cli/chat.ts"], false);
  assert.ok([...chat].some((specifier) => specifier.includes("/lib/llm/")));
});

Deno.test("a deterministic generate loads no external generator code", async () => {
  // It loads at its first call, by a computed specifier; a literal import() would still make
  // deno run read its graph, so those edges are followed here.
  const late = /\/lib\/generate\/_external_generator\.ts$/;
  const roots = ["main.ts", "lib/cli/generate.ts", "lib/cli/_generate_run.ts"];
  const modules = [...reachable(graph, roots, true)];
  assert.deepEqual(modules.filter((specifier) => late.test(specifier)), []);
  // …and the check sees that code where a call does load it.
  const files = ["lib/generate/_external_generator.ts"];
  const loaded = [...reachable(await moduleGraph(files), files, false)];
  assert.equal(loaded.filter((specifier) => late.test(specifier)).length, 1);
});

/** What `syn tools run fs.read_text` loads: its command and the tools' argument validators. */
const TOOLS_READ_ROOTS = [
  "main.ts",
  "lib/cli/tools.ts",
  "lib/schema/_generated/precompiled_service_schemas.js",
  "lib/schema/_generated/precompiled_tool_schemas.js",
];

Deno.test("tools run loads no node: built-in but node:sqlite and no npm package before a call needs one, and its sandbox worker none at all", async () => {
  // The worker is a new isolate: a node: import there pays Node's layer again, per sandbox.
  // http.get's cache loads node:sqlite with the tools (about 1 ms, docs/performance.md);
  // writes (node:fs) load when a call needs them, by a computed specifier; the name lookup
  // (node:dns), by a literal import() (not followed here).
  assert.deepEqual(external(reachable(graph, TOOLS_READ_ROOTS, false)), ["node:sqlite"]);
  const worker = await moduleGraphOf("lib/tools/_sandbox_worker.ts");
  assert.deepEqual(worker.modules.map((module) => module.specifier), [
    new URL("lib/tools/_sandbox_worker.ts", root).href,
  ]);
});

Deno.test("tools run fs.read_text loads no write code (node:fs) until a call writes", async () => {
  // Literal import() edges are followed: deno run reads and resolves those graphs too.
  const write = /\/lib\/tools\/_write_inside\.ts$|^node:fs$/;
  const modules = [...reachable(graph, TOOLS_READ_ROOTS, true)];
  assert.deepEqual(modules.filter((specifier) => write.test(specifier)), []);
  // …and the check sees that code where a write does load it.
  const late = ["lib/tools/_write_inside.ts"];
  const loaded = [...reachable(await moduleGraph(late), late, false)];
  assert.deepEqual(loaded.filter((specifier) => write.test(specifier)).length, 2);
});

Deno.test("the graph Deno resolves before validate, diff, mcp-serve or generate runs holds no npm package", () => {
  // Literal `import()`s count: Deno resolves them before the module runs, taken or not. ajv,
  // the MCP SDK and the preview are imported by computed specifiers, which it cannot see.
  for (const command of ["validate", "diff", "mcp_serve", "generate"]) {
    const modules = reachable(graph, ["main.ts", `lib/cli/${command}.ts`], true);
    const packages = external(modules).filter((name) => name.startsWith("npm:"));
    assert.deepEqual(packages, [], command);
  }
});

Deno.test("the forbidden-module check sees a module the graph really reaches", () => {
  const everything = reachable(graph, ["main.ts", "lib/cli/chat.ts", "lib/cli/preview.ts"], true);
  assert.ok(forbidden(everything).some((specifier) => specifier.includes("/lib/chat/")));
  assert.ok(forbidden(everything).some((specifier) => specifier.includes("playwright-core")));
});

/**
 * The CLI's modules every start loads: its door, the dispatch, the command table, the I/O
 * interface, the "did you mean" helper the dispatch uses for an unknown command (one
 * small file that imports nothing), and the wording of bad-usage errors it prints (one
 * small file that imports only core).
 */
const CLI_START_FILES = [
  "mod.ts",
  "run_cli.ts",
  "commands.ts",
  "io.ts",
  "_closest_name.ts",
  "_usage_text.ts",
];

Deno.test("the graph Deno builds before main.ts runs holds no command's module", async () => {
  const start = await moduleGraphOf("main.ts");
  const cli = start.modules.map((module) => module.specifier)
    .filter((specifier) => specifier.startsWith(new URL("lib/cli/", root).href));
  const commands = cli.filter((specifier) =>
    !CLI_START_FILES.includes(specifier.slice(specifier.lastIndexOf("/") + 1))
  );
  assert.deepEqual(commands, []);
  // …and the check sees the dispatch it leaves out.
  assert.ok(cli.some((specifier) => specifier.endsWith("/lib/cli/run_cli.ts")));
});
