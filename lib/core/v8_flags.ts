/**
 * The V8 flags syn starts its own processes with: the validator child `generate`, `critique`
 * and `patch` spawn (`main.ts`'s `selfCommand`), the installed launcher and the compiled binary.
 *
 * `--min-semi-space-size=8` (MiB): a young generation large enough that a one-shot command,
 * or a validator child answering one `generate`, ends before its first scavenge. V8 starts
 * with 1 MiB semi-spaces and collects while the modules load, when nearly everything
 * allocated is still alive: 3–4 ms of a ~45 ms child (docs/performance.md). Heap sizes are
 * left out of V8's flag hash, so these processes share Deno's code cache with processes
 * started without them (`v8_flags_test.ts` checks it); a flag that enters the hash
 * (`--max-lazy`, `--trace-gc`) would make each side recompile and rewrite the cache of every
 * module the other loads.
 */
export const PROCESS_V8_FLAGS = "--min-semi-space-size=8";
