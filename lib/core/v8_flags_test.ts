import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { PROCESS_V8_FLAGS } from "./v8_flags.ts";

/** Runs `deno run [--v8-flags=flags] module` with `DENO_DIR` set, and fails with its stderr. */
async function runWithCache(denoDir: string, module: string, flags?: string): Promise<void> {
  const args = ["run", "--no-config", ...(flags ? [`--v8-flags=${flags}`] : []), module];
  const result = await new Deno.Command(Deno.execPath(), {
    args,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", NO_COLOR: "1", DENO_DIR: denoDir },
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
}

/** The code cache Deno holds for `module`, or `undefined`. */
function cachedCode(denoDir: string, module: string): Uint8Array | undefined {
  const database = new DatabaseSync(`${denoDir}/v8_code_cache_v2`, { readOnly: true });
  try {
    const row = database.prepare("SELECT data FROM codecache WHERE specifier = ?")
      .get(`file://${module}`) as { data: Uint8Array } | undefined;
    return row?.data;
  } finally {
    database.close();
  }
}

/**
 * Whether a process started with `flags`, after one started without, leaves the module's
 * code cache as it was (it accepts it) rather than rewriting it (it rejects it).
 */
async function sharesCodeCache(flags: string): Promise<boolean> {
  const denoDir = await Deno.makeTempDir({ prefix: "syn-v8-flags-" });
  try {
    const module = `${denoDir}/module.ts`;
    // Enough code for V8 to cache: a few functions, called.
    await Deno.writeTextFile(
      module,
      Array.from(
        { length: 40 },
        (_, index) => `export function f${index}(x: number) { return x * ${index}; }`,
      )
        .join("\n") +
        "\nlet sum = 0;\nfor (let i = 0; i < 40; i++) sum += f1(i);\nif (sum < 0) console.log(sum);\n",
    );
    await runWithCache(denoDir, module);
    const before = cachedCode(denoDir, module);
    assert.ok(before && before.length > 0, "no code cache was written");
    await runWithCache(denoDir, module, flags);
    const after = cachedCode(denoDir, module)!;
    return before.length === after.length && before.every((byte, index) => byte === after[index]);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
}

Deno.test("syn's V8 flags share Deno's code cache with processes started without them", async () => {
  assert.equal(await sharesCodeCache(PROCESS_V8_FLAGS), true);
  // The check can tell: a flag that enters V8's flag hash makes the cache be rewritten.
  assert.equal(await sharesCodeCache("--max-lazy"), false);
});
