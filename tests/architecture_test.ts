import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { childEnv } from "./fakes/child_env.ts";

/**
 * The dependency direction, edge by edge as the code has it: what each capability of `lib/`
 * may import. This table is its one source: a test below keeps it from allowing an edge
 * nothing uses, and another checks that README.md states it in the words
 * `dependencyDirection` makes of it. Nothing imports upward, no cycles, other capabilities
 * only through their `mod.ts`.
 */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  schema: ["core"],
  patch: ["core"],
  rpc: ["core"],
  llm: ["core", "schema"],
  tools: ["core", "schema"],
  mcp: ["core", "schema", "patch", "rpc", "tools"],
  generate: ["core", "schema", "patch", "llm", "mcp"],
  chat: ["core", "schema", "llm", "tools"],
  synthesize: ["core", "schema", "llm", "tools"],
  preview: ["core", "schema"],
  proxy: ["core", "tools", "mcp", "synthesize"],
  cli: [
    "core",
    "schema",
    "patch",
    "rpc",
    "llm",
    "tools",
    "mcp",
    "generate",
    "chat",
    "synthesize",
    "preview",
    "proxy",
  ],
};

const root = new URL("../", import.meta.url);

/**
 * The table as a Markdown list, one line per set of capabilities that may import the same
 * others, in the table's order: what README.md says.
 */
export function dependencyDirection(allowed: Record<string, readonly string[]>): string {
  const names = Object.keys(allowed);
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const key = allowed[name].join(",");
    groups.set(key, [...groups.get(key) ?? [], name]);
  }
  const quoted = (list: readonly string[]) => list.map((name) => `\`${name}\``).join(", ");
  return [...groups].map(([key, group]) => {
    const targets = key === "" ? [] : key.split(",");
    const others = names.filter((name) => !group.includes(name));
    const what = targets.length === 0
      ? "none of the others"
      : targets.length === others.length
      ? "any of the others"
      : quoted(targets);
    return `- ${quoted(group)} ${group.length === 1 ? "imports" : "import"} ${what}`;
  }).join("\n");
}

/** A source file: its path from the repository root (`/`-separated) and its text. */
interface SourceFile {
  path: string;
  text: string;
}

function* walk(directory: URL): Generator<URL> {
  for (const entry of Deno.readDirSync(directory)) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), directory);
    if (entry.isDirectory) yield* walk(url);
    else if (/\.(ts|js|json|jsonc)$/.test(entry.name)) yield url;
  }
}

const IMPORT =
  /(?:^|[;\s])(?:import|export)\s(?:[^"'`;]*?\sfrom\s)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Every static or literal dynamic import specifier in a source text. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(IMPORT)) found.push(match[1] ?? match[2]);
  return found;
}

/** The repository's sources, generated output folders left out. */
function sourceFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  for (const url of walk(root)) {
    const path = decodeURIComponent(url.pathname.slice(root.pathname.length));
    if (path.startsWith("meta/") || path.startsWith("coverage/") || path.startsWith("dist/")) {
      continue;
    }
    files.push({ path, text: Deno.readTextFileSync(url) });
  }
  return files;
}

/** `lib/<capability>/…` → the capability. */
function capabilityOf(path: string): string | undefined {
  return /^lib\/([^/]+)\//.exec(path)?.[1];
}

/** A relative specifier resolved against the importing file, as a path from the root. */
function resolveFrom(path: string, specifier: string): string {
  const base = new URL(path, "file:///repository/");
  return new URL(specifier, base).pathname.slice("/repository/".length);
}

/**
 * Every import that breaks the rules, as a readable line: a `lib/` module importing a
 * capability above it, another capability's internals instead of its `mod.ts`, or code
 * outside `lib/` (tests and benchmarks may use shared fakes; `schemas/` is data); the root
 * `main.ts` and `mod.ts` importing anything but a capability's `mod.ts`.
 */
export function dependencyViolations(files: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    if (!file.path.endsWith(".ts")) continue;
    const from = capabilityOf(file.path);
    const atRoot = file.path === "main.ts" || file.path === "mod.ts";
    if (!from && !atRoot) continue;
    if (from && !ALLOWED[from]) {
      violations.push(`${file.path}: lib/${from} is not a capability in the dependency table`);
      continue;
    }
    for (const specifier of importSpecifiers(file.text)) {
      if (!specifier.startsWith(".")) continue;
      const target = resolveFrom(file.path, specifier);
      if (target === file.path) continue; // a doc example such as mod.ts's `from "./mod.ts"`
      const to = capabilityOf(target);
      if (atRoot) {
        if (!to || target !== `lib/${to}/mod.ts`) {
          violations.push(`${file.path} imports ${specifier}: use a lib/<capability>/mod.ts`);
        }
        continue;
      }
      if (!to) {
        const testCode = /_test\.ts$|_bench\.ts$/.test(file.path);
        if (!testCode && !target.startsWith("schemas/")) {
          violations.push(`${file.path} imports ${specifier} outside lib/`);
        }
        continue;
      }
      if (to === from) continue;
      if (!ALLOWED[from!].includes(to)) {
        violations.push(`${file.path}: lib/${from} must not import lib/${to} (${specifier})`);
      } else if (target !== `lib/${to}/mod.ts`) {
        violations.push(`${file.path} imports ${specifier}: use lib/${to}/mod.ts`);
      }
    }
  }
  return violations;
}

Deno.test("importSpecifiers() finds static, re-export and dynamic imports", () => {
  const source = `import { a } from "./a.ts";\nexport * from "../b/mod.ts";\n` +
    `import "./side.ts";\nconst m = await import("./lazy.ts");\nimport type {\n  T,\n} from "./t.ts";`;
  assert.deepEqual(importSpecifiers(source), [
    "./a.ts",
    "../b/mod.ts",
    "./side.ts",
    "./lazy.ts",
    "./t.ts",
  ]);
});

Deno.test("dependencyViolations() catches every kind of forbidden import", () => {
  const files: SourceFile[] = [
    // Allowed: down the direction through mod.ts, inside a capability, a test's fakes, data.
    { path: "lib/mcp/a.ts", text: `import { x } from "../schema/mod.ts";` },
    { path: "lib/mcp/b.ts", text: `import { y } from "./_helper.ts";` },
    { path: "lib/mcp/b_test.ts", text: `import { f } from "../../tests/fakes/cli_io.ts";` },
    { path: "lib/schema/c.ts", text: `const s = await import("../../schemas/x.json");` },
    { path: "mod.ts", text: `export * from "./lib/patch/mod.ts";` },
    // Forbidden, one of each kind.
    { path: "lib/schema/up.ts", text: `import type { T } from "../mcp/mod.ts";` },
    { path: "lib/llm/lazy.ts", text: `const g = await import("../generate/mod.ts");` },
    { path: "lib/mcp/inside.ts", text: `import { z } from "../schema/_explain.ts";` },
    { path: "lib/core/out.ts", text: `import { f } from "../../tests/fakes/cli_io.ts";` },
    { path: "lib/widgets/w.ts", text: `import { v } from "../core/mod.ts";` },
    { path: "main.ts", text: `import { runCli } from "./lib/cli/run_cli.ts";` },
    { path: "not-lib.json", text: `import "../mcp/mod.ts"` },
  ];
  assert.deepEqual(dependencyViolations(files), [
    "lib/schema/up.ts: lib/schema must not import lib/mcp (../mcp/mod.ts)",
    "lib/llm/lazy.ts: lib/llm must not import lib/generate (../generate/mod.ts)",
    "lib/mcp/inside.ts imports ../schema/_explain.ts: use lib/schema/mod.ts",
    "lib/core/out.ts imports ../../tests/fakes/cli_io.ts outside lib/",
    "lib/widgets/w.ts: lib/widgets is not a capability in the dependency table",
    "main.ts imports ./lib/cli/run_cli.ts: use a lib/<capability>/mod.ts",
  ]);
});

Deno.test("lib modules import only downward, and other capabilities only through mod.ts", () => {
  assert.deepEqual(dependencyViolations(sourceFiles()), []);
});

/** Every `from → to` edge between capabilities that some file of `from` imports. */
export function usedEdges(files: readonly SourceFile[]): Set<string> {
  const edges = new Set<string>();
  for (const file of files) {
    const from = capabilityOf(file.path);
    if (!from || !file.path.endsWith(".ts")) continue;
    for (const specifier of importSpecifiers(file.text)) {
      if (!specifier.startsWith(".")) continue;
      const to = capabilityOf(resolveFrom(file.path, specifier));
      if (to && to !== from) edges.add(`${from} → ${to}`);
    }
  }
  return edges;
}

Deno.test("dependencyDirection() groups capabilities that import the same others", () => {
  const table = {
    core: [],
    a: ["core"],
    b: ["core"],
    c: ["core", "a"],
    top: ["core", "a", "b", "c"],
  };
  assert.equal(
    dependencyDirection(table),
    [
      "- `core` imports none of the others",
      "- `a`, `b` import `core`",
      "- `c` imports `core`, `a`",
      "- `top` imports any of the others",
    ].join("\n"),
  );
});

Deno.test("README.md states the dependency direction as the table has it", () => {
  const words = (text: string) => text.replace(/\s+/g, " ");
  const readme = Deno.readTextFileSync(new URL("README.md", root));
  const expected = dependencyDirection(ALLOWED);
  assert.ok(
    words(readme).includes(words(expected)),
    `README.md should list the dependency direction as:\n${expected}`,
  );
});

Deno.test("the allowed table allows no edge that nothing uses", () => {
  const used = usedEdges(sourceFiles());
  const unused = Object.entries(ALLOWED).flatMap(([from, targets]) =>
    targets.map((to) => `${from} → ${to}`).filter((edge) => !used.has(edge))
  );
  assert.deepEqual(unused, []);
});

/**
 * Import cycles between files inside lib/ (static, type-only and dynamic imports all
 * count), each as the files around the cycle. A cycle within a capability still ties
 * its files into one unit that cannot be read or tested apart.
 */
export function importCycles(files: readonly SourceFile[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const file of files) {
    if (!file.path.startsWith("lib/") || !file.path.endsWith(".ts")) continue;
    const targets = importSpecifiers(file.text).filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveFrom(file.path, specifier))
      .filter((target) => target !== file.path && target.startsWith("lib/"));
    edges.set(file.path, targets);
  }
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (path: string) => {
    state.set(path, "open");
    stack.push(path);
    for (const next of edges.get(path) ?? []) {
      if (state.get(next) === "open") cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(path, "done");
  };
  for (const path of [...edges.keys()].sort()) if (!state.has(path)) visit(path);
  return cycles;
}

Deno.test("importCycles() finds a cycle through a type-only and a dynamic import", () => {
  const files: SourceFile[] = [
    { path: "lib/mcp/a.ts", text: `import type { S } from "./b.ts";` },
    { path: "lib/mcp/b.ts", text: `const m = await import("./a.ts");` },
    { path: "lib/mcp/c.ts", text: `import { x } from "./a.ts";` },
  ];
  assert.deepEqual(importCycles(files), [["lib/mcp/a.ts", "lib/mcp/b.ts"]]);
});

Deno.test("no file in lib/ imports itself through others", () => {
  assert.deepEqual(importCycles(sourceFiles()), []);
});

/**
 * Imports of the CLI's private files (`lib/cli/_*.ts`) from anywhere but `lib/cli`: what
 * they hold is flag handling and printing; what other code needs belongs in a capability.
 */
export function cliPrivateImports(files: readonly SourceFile[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (!file.path.endsWith(".ts") || file.path.startsWith("lib/cli/")) continue;
    for (const specifier of importSpecifiers(file.text)) {
      if (!specifier.startsWith(".")) continue;
      if (/^lib\/cli\/_[^/]*$/.test(resolveFrom(file.path, specifier))) {
        found.push(`${file.path} imports ${specifier}`);
      }
    }
  }
  return found;
}

Deno.test("only lib/cli imports the CLI's private files", () => {
  const planted: SourceFile[] = [
    { path: "lib/cli/synthesize.ts", text: `import { mine } from "./_synthesize_mine.ts";` },
    { path: "tests/x_test.ts", text: `import { a } from "../lib/cli/_synthesize_tools.ts";` },
    { path: "scripts/y.ts", text: `const b = await import("../lib/cli/_chat_backend.ts");` },
    { path: "tests/z_test.ts", text: `import { runCli } from "../lib/cli/mod.ts";` },
  ];
  assert.deepEqual(cliPrivateImports(planted), [
    "tests/x_test.ts imports ../lib/cli/_synthesize_tools.ts",
    "scripts/y.ts imports ../lib/cli/_chat_backend.ts",
  ]);
  // This file's planted imports above are text, not imports.
  const sources = sourceFiles().filter((file) => file.path !== "tests/architecture_test.ts");
  assert.deepEqual(cliPrivateImports(sources), []);
});

// Built from parts so this file does not match its own rule.
const JSR_SPECIFIER = new RegExp("(^|[^a-z])" + "js" + "r:");

/** Files that name a JSR specifier, which cannot resolve here (only npm is reachable). */
function jsrOffenders(files: readonly SourceFile[]): string[] {
  return files.filter((file) => JSR_SPECIFIER.test(file.text)).map((file) => file.path);
}

Deno.test("no JSR specifier appears anywhere in the sources or config", () => {
  const planted = ["js", "r:@std/assert"].join("");
  assert.deepEqual(
    jsrOffenders([
      { path: "deno.json", text: `{"imports":{"@std/assert":"${planted}"}}` },
      { path: "lib/a.ts", text: `import { assert } from "${planted}";` },
      { path: "lib/b.ts", text: `import { x } from "npm:ajv@8.20.0";` },
    ]),
    ["deno.json", "lib/a.ts"],
  );
  assert.deepEqual(jsrOffenders(sourceFiles()), []);
});

Deno.test("deno.json imports are npm: specifiers with pinned versions", () => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", root)));
  for (const [name, target] of Object.entries(config.imports as Record<string, string>)) {
    assert.match(target, /^npm:\/?(@[^/]+\/)?[^@/]+@\d+\.\d+\.\d+(\/.*)?$/, `${name} → ${target}`);
  }
});

Deno.test("VERSION matches deno.json", async () => {
  const { VERSION } = await import("../lib/core/mod.ts");
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", root)));
  assert.equal(VERSION, config.version);
});

Deno.test("importing mod.ts has no side effects: no permission asked, nothing printed", async () => {
  // With no permissions and --no-prompt, any read of env, files, network or a subprocess
  // at import time would throw and exit non-zero.
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-check", "--quiet", fileURLToPath(new URL("mod.ts", root))],
    clearEnv: true,
    env: childEnv(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assert.deepEqual(
    [result.code, decoder.decode(result.stdout), decoder.decode(result.stderr)],
    [0, "", ""],
  );
});
