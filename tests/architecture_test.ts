import assert from "node:assert/strict";

/**
 * The dependency direction of ARCHITECTURE.md:
 * `core` ← `schema`, `patch`, `rpc`, `llm`, `tools` ← `mcp` ← `generate`;
 * `tools`, `llm` ← `chat`, `synthesize`; `cli` on top. Nothing imports upward, other
 * capabilities only through their `mod.ts`.
 */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  schema: ["core"],
  patch: ["core"],
  rpc: ["core"],
  llm: ["core"],
  tools: ["core"],
  mcp: ["core", "schema", "patch", "rpc"],
  generate: ["core", "schema", "patch", "rpc", "llm", "mcp"],
  chat: ["core", "schema", "patch", "rpc", "llm", "tools", "mcp"],
  synthesize: ["core", "schema", "patch", "llm", "tools", "chat"],
  cli: ["core", "schema", "patch", "rpc", "llm", "tools", "mcp", "generate", "chat", "synthesize"],
};

const root = new URL("../", import.meta.url);

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

function capabilityOf(url: URL): string | undefined {
  const relative = url.pathname.slice(root.pathname.length);
  const match = /^lib\/([^/]+)\//.exec(relative);
  return match?.[1];
}

function sourceFiles(): URL[] {
  return [...walk(root)].filter((url) => {
    const relative = url.pathname.slice(root.pathname.length);
    return !relative.startsWith("meta/") && !relative.startsWith("coverage/");
  });
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

Deno.test("lib modules import only downward, and other capabilities only through mod.ts", () => {
  const violations: string[] = [];
  for (const file of sourceFiles()) {
    if (!file.pathname.endsWith(".ts")) continue;
    const from = capabilityOf(file);
    if (!from) continue;
    const allowed = ALLOWED[from];
    if (!allowed) {
      violations.push(`${file.pathname}: lib/${from} is not a capability in ARCHITECTURE.md`);
      continue;
    }
    const source = Deno.readTextFileSync(file);
    for (const specifier of importSpecifiers(source)) {
      if (!specifier.startsWith(".")) continue;
      const target = new URL(specifier, file);
      const to = capabilityOf(target);
      const relativeTarget = target.pathname.slice(root.pathname.length);
      if (!to) {
        // Test files may use shared fakes; production code must stay inside lib/.
        if (
          !/_test\.ts$|_bench\.ts$/.test(file.pathname) && !relativeTarget.startsWith("schemas/")
        ) {
          violations.push(`${file.pathname} imports ${specifier} outside lib/`);
        }
        continue;
      }
      if (to === from) continue;
      if (!allowed.includes(to)) {
        violations.push(`${file.pathname}: lib/${from} must not import lib/${to} (${specifier})`);
      } else if (!relativeTarget.endsWith(`lib/${to}/mod.ts`)) {
        violations.push(`${file.pathname} imports ${specifier}: use lib/${to}/mod.ts`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

// Built from parts so this file does not match its own rule.
const JSR_SPECIFIER = new RegExp("(^|[^a-z])" + "js" + "r:");

Deno.test("no JSR specifier appears anywhere in the sources or config", () => {
  const offenders: string[] = [];
  for (const file of sourceFiles()) {
    const text = Deno.readTextFileSync(file);
    if (JSR_SPECIFIER.test(text)) offenders.push(file.pathname.slice(root.pathname.length));
  }
  assert.deepEqual(offenders, []);
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
