/**
 * The npm side of ajv in one module, imported by `_ajv.ts` through a computed specifier:
 * a literal `import("ajv/…")` anywhere in a command's graph makes `deno run` resolve the
 * npm packages before that command starts, even when it never compiles a schema (`validate`
 * and the validator child use the embedded, precompiled validators). `deno compile` embeds
 * this file by name (`scripts/compile_options.ts`).
 */
export * as ajv2020 from "ajv/dist/2020.js";
export * as ajvFormats from "ajv-formats";
