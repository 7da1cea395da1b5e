import { errorMessage, redactValue, resolvePath, UsageError } from "../core/mod.ts";
import { openValidator } from "../mcp/mod.ts";
import { type GenerateArgs, parseGenerateArgs } from "./_generate_args.ts";
import { readFileCapped } from "./_read_document.ts";
import type { CliIo } from "./io.ts";
import type { runGenerate } from "./_generate_run.ts";

export const help = `syn generate — prompt → validated, logged Synesthetic asset

Usage:
  syn generate [options] "prompt"
  syn generate --batch prompts.txt [--concurrency N] [options]

Engines:
  --engine NAME        deterministic (default, no network, no keys), gemini, openai, anthropic
                       External engines run in mock mode (canned answers) unless
                       LABS_EXTERNAL_LIVE=1 and the provider's key (GEMINI_API_KEY,
                       OPENAI_API_KEY, ANTHROPIC_API_KEY) are set. OPENAI_ENDPOINT may point
                       at any OpenAI-compatible server.
  --endpoint URL       provider base URL (wins over GEMINI_/OPENAI_/ANTHROPIC_ENDPOINT)
  --model ID           provider model id (wins over GEMINI_/OPENAI_/ANTHROPIC_MODEL)

Options:
  --seed N             same prompt + seed → same asset (any integer; default 0)
  --temperature F      0…2 (for openai, overrides OPENAI_TEMPERATURE)
  --timeout-s N        the most you wait for the provider, in seconds: every attempt
                       and retry pause included (default: 35 s per attempt, up to
                       4 attempts)
  --strict             any validation failure → exit 1, logged severity=error (default)
  --relaxed            validation failures logged severity=warning, exit 0;
                       an invalid asset is never written in either mode
                       (flags win over LABS_FAIL_FAST=1|0)
  --out DIR            where valid assets go (default meta/output/assets, env LABS_OUTPUT_DIR)
  --log-dir DIR        Labs log root (default meta/output/labs, env LABS_LOG_DIR):
                       generator.jsonl, external.jsonl, critic.jsonl, patches.jsonl
  --batch FILE         one prompt per line (blank lines and # comments skipped)
  --concurrency N      prompts in flight in a batch (default 4), one validator connection
  --preview            then serve the written asset(s) in the browser (see 'syn preview
                       --help'); the URL goes to stderr, Ctrl-C stops
  -h, --help           show this help

Validation always goes through the validator service: MCP_ENDPOINT=tcp|stdio|socket
(MCP_HOST/MCP_PORT, MCP_ADAPTER_CMD, MCP_SOCKET_PATH); with nothing set, syn starts
its own 'syn mcp-serve --stdio' child.

Output: a JSON summary on stdout (ok, status, trace_id, asset_path, failure, …); for a
batch, one JSON report (a summary and one result per prompt) and a summary line on
stderr. status is ok (validated and written), invalid (failed pre-flight or the schema;
never written) or failed (provider error, unusable answer, validator unreachable, asset
not writable). Exit 0 ok (or invalid with --relaxed), 1 failed (in either mode) or
invalid in strict mode, 2 bad usage or configuration, 130 interrupted: on Ctrl-C (SIGINT)
a run in flight ends as 'interrupted' in the logs unless its asset was already valid (then
it is written), no further prompt starts, and the report lists what finished.
Each failure reason and its remedy: docs/troubleshooting_external.md in the repository.

Examples:
  syn generate "a pulsing blue circle"
  syn generate "a calm blue ocean at dusk" --seed 7 --out assets/
  syn generate --engine=gemini "angry red fire" --relaxed
  LABS_EXTERNAL_LIVE=1 OPENAI_API_KEY=… syn generate --engine=openai "neon rain"
  printf 'a pulsing blue circle\\nangry red fire\\n' > prompts.txt
  syn generate --batch prompts.txt --concurrency 4
`;

/** A batch file larger than this is refused while it is read, before it is parsed. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * The longest prompt taken, in UTF-8 bytes: a provider request is capped at 256 KiB, and an
 * asset that carries a longer prompt would not fit the validator's 1 MiB request.
 */
export const MAX_PROMPT_BYTES = 256 * 1024;

/** Refuses a prompt over `MAX_PROMPT_BYTES`, saying where it is (`where`: "" or "line N: "). */
function checkPromptSize(prompt: string, where: string): string {
  const bytes = new TextEncoder().encode(prompt).length;
  if (bytes > MAX_PROMPT_BYTES) {
    throw new UsageError(
      `${where}the prompt is ${bytes} bytes; the limit is ${MAX_PROMPT_BYTES} (256 KiB)`,
    );
  }
  return prompt;
}

function readPrompts(text: string, batchFile: string): string[] {
  return text.split(/\r?\n/).flatMap((line, index) => {
    const prompt = line.trim();
    if (prompt === "" || prompt.startsWith("#")) return [];
    return [checkPromptSize(prompt, `--batch file ${batchFile}, line ${index + 1}: `)];
  });
}

/** The prompts to run: the one positional prompt, or the lines of `--batch FILE`. */
async function promptsFrom(
  values: GenerateArgs["values"],
  positionals: string[],
  io: CliIo,
): Promise<string[]> {
  const batchFile = values.batch;
  if (values.concurrency !== undefined && batchFile === undefined) {
    throw new UsageError("--concurrency applies to --batch only");
  }
  if (batchFile === undefined) {
    if (positionals.length > 1) {
      // Joining stray words into the prompt would hide a typo'd flag (`--sede 3`) or a
      // missing pair of quotes.
      throw new UsageError(
        `give the prompt as one argument, in quotes: syn generate "${
          positionals.join(" ").slice(0, 60)
        }"`,
      );
    }
    const prompt = (positionals[0] ?? "").trim();
    if (!prompt) throw new UsageError("a prompt is required");
    return [checkPromptSize(prompt, "")];
  }
  if (positionals.length) throw new UsageError("give either a prompt or --batch FILE, not both");
  let text: string;
  try {
    const bytes = await readFileCapped(resolvePath(io.cwd, batchFile), batchFile, MAX_BATCH_BYTES);
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    throw new UsageError(`cannot read --batch file: ${batchFile} (${errorMessage(error)})`);
  }
  const prompts = readPrompts(text, batchFile);
  if (!prompts.length) throw new UsageError(`--batch file has no prompts: ${batchFile}`);
  return prompts;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseGenerateArgs(args);
  const prompts = await promptsFrom(parsed.values, parsed.positionals, io);
  // The validator (by default our own `mcp-serve --stdio` child) is started before the
  // generation code loads: the child's start is the critical path of a one-shot run, and
  // the two then load side by side. The rest is imported by a computed specifier for the
  // same reason commands are (lib/cli/commands.ts).
  const say = (line: string) => io.stderr(redactValue(line, io.config.secrets));
  const opening = openValidator({
    config: io.config,
    selfCommand: io.selfCommand,
    warn: (line) => void say(`syn generate: ${line.replace(/\n$/, "")}\n`),
    // One prompt is one validation: the child then exits while the asset is written.
    closeAfter: parsed.values.batch === undefined ? 1 : undefined,
  });
  // A configuration the validator cannot use is reported by the run, which awaits it.
  opening.catch(() => {});
  const generation: { runGenerate: typeof runGenerate } = await import(
    new URL("./_generate_run.ts", import.meta.url).href
  );
  return await generation.runGenerate(parsed, prompts, { io, say, opening });
}
