import { parseCommandArgs } from "./args.ts";

const OPTIONS = {
  engine: { type: "string" },
  endpoint: { type: "string" },
  model: { type: "string" },
  seed: { type: "string" },
  temperature: { type: "string" },
  "timeout-s": { type: "string" },
  strict: { type: "boolean" },
  relaxed: { type: "boolean" },
  out: { type: "string" },
  "log-dir": { type: "string" },
  batch: { type: "string" },
  concurrency: { type: "string" },
  preview: { type: "boolean" },
} as const;

/** The flags and positionals of one `syn generate` call. */
export type GenerateArgs = ReturnType<typeof parseGenerateArgs>;

export function parseGenerateArgs(args: string[]) {
  return parseCommandArgs("generate", args, OPTIONS);
}
