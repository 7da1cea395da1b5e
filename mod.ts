/**
 * @module
 * syn as a library: the pure APIs behind the command line, with no side effects on
 * import. The CLI itself lives in `main.ts`.
 *
 * ```ts
 * import { diff, loadSchemaStore } from "./mod.ts";
 * const store = await loadSchemaStore();
 * store.validate({ name: "x" }, "synesthetic-asset"); // { ok: true, errors: [] }
 * diff({ a: 1 }, { a: 2 }); // [{ op: "replace", path: "/a", value: 2 }]
 * ```
 */
export * from "./lib/core/mod.ts";
export * from "./lib/schema/mod.ts";
export * from "./lib/patch/mod.ts";
export * from "./lib/rpc/mod.ts";
export * from "./lib/mcp/mod.ts";
export * from "./lib/llm/mod.ts";
export * from "./lib/generate/mod.ts";
