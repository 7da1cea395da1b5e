import assert from "node:assert/strict";
import { runCommand } from "./cli_io.ts";

/** One module of `deno info --json`, with the edges these tests read. */
export interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
}

/** The part of `deno info --json`'s answer these tests read. */
export interface ModuleGraph {
  roots?: string[];
  modules: InfoModule[];
  redirects: Record<string, string>;
}

/** The module graph `deno info --json …args` gives (its last argument is the root file). */
export async function denoInfo(args: string[], cwd?: string): Promise<ModuleGraph> {
  const { code, stdout, stderr } = await runCommand(
    [Deno.execPath()],
    ["info", "--json", ...args],
    {
      cwd,
    },
  );
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout);
}

/**
 * Every module reachable from `roots` (specifiers) through code edges (static and literal
 * dynamic imports; a type-only import loads nothing), redirects followed. `follows` may
 * leave out an edge, given the module it leaves from.
 */
export function reachableModules(
  graph: ModuleGraph,
  roots: readonly string[],
  follows: (edge: { isDynamic?: boolean }, from: string) => boolean = () => true,
): Set<string> {
  const byName = new Map(graph.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length) {
    const specifier = pending.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of byName.get(specifier)?.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target && follows(dependency, specifier)) pending.push(graph.redirects[target] ?? target);
    }
  }
  return seen;
}
