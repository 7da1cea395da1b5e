/**
 * The registry of synthesized tools on disk: one JSON file per tool in
 * `<state>/synthesized/`, written atomically, with the spec's promotion workflow
 * `DRAFT → TESTING → PROMOTED`. A file there is untrusted: each is checked on every read
 * (the entry's schema, its tool's checks, its id equal to its file name), and one that
 * fails is skipped with the reasons, never fatal.
 */
import {
  compareCodePoints,
  compareIssues,
  ensurePrivateDirSync,
  isRecord,
  joinPath,
  parseJson,
  SynError,
  writeFileAtomic,
} from "../core/mod.ts";
import { compileJsonSchema, type JsonSchemaValidator } from "../schema/mod.ts";
import type { ValidationResult } from "./replay_validation.ts";
import { MAX_JSON_DEPTH, withinDepth } from "./_json_depth.ts";
import {
  checkSynthesizedTool,
  type SynthesizedTool,
  synthesizedToolShape,
} from "./synthesized_tool.ts";

export type ToolStatus = "DRAFT" | "TESTING" | "PROMOTED";

export interface RegistryEntry {
  tool: SynthesizedTool;
  status: ToolStatus;
  engine: string;
  created_at: string;
  updated_at: string;
  validation: ValidationResult | null;
  /**
   * Promoted on replay evidence alone, because the user said `--allow-replay-only`: the
   * composite was never executed before it was served.
   */
  replay_only?: boolean;
}

/** How a tool may be promoted. */
export interface PromotionOptions {
  /** Accept a validation that rests on replay alone (never executed). Default: refuse. */
  allowReplayOnly?: boolean;
}

/** Whether a validation executed the composite (what promotion needs by default). */
export function executed(validation: ValidationResult | null | undefined): boolean {
  return validation?.evidence === "execution";
}

const TOOL_ID = /^[a-z0-9][a-z0-9_.-]{0,95}$/;
/** A registry file larger than this is not read. */
const MAX_ENTRY_BYTES = 1024 * 1024;

/** An entry file that was not loaded, and why. */
export interface SkippedEntry {
  file: string;
  problems: string[];
}

/**
 * The shape of a registry file around its tool; the tool itself is checked against the
 * `SynthesizedTool` schema (`synthesizedToolShape`). Both validators are generated ahead
 * of time with the run-time record schemas (`scripts/build_schema_validators.ts`).
 */
export const REGISTRY_ENTRY_SCHEMA: Readonly<Record<string, unknown>> = {
  type: "object",
  required: ["tool", "status", "engine", "created_at", "updated_at", "validation"],
  properties: {
    tool: { type: "object" },
    status: { enum: ["DRAFT", "TESTING", "PROMOTED"] },
    engine: { type: "string", pattern: "^[a-z0-9_.-]{1,64}$" },
    created_at: { type: "string", format: "date-time" },
    updated_at: { type: "string", format: "date-time" },
    validation: {
      type: ["object", "null"],
      required: ["passed", "reasons", "validated_at"],
      properties: {
        passed: { type: "boolean" },
        reasons: { type: "array", items: { type: "string" } },
        validated_at: { type: "string", format: "date-time" },
      },
    },
  },
};
let entryValidator: Promise<JsonSchemaValidator> | undefined;

/** Why the text of `<toolId>.json` is not a registry entry (empty: it is one). */
export async function registryEntryProblems(toolId: string, value: unknown): Promise<string[]> {
  if (!withinDepth(value)) return [`/: nested deeper than ${MAX_JSON_DEPTH} levels`];
  entryValidator ??= compileJsonSchema(REGISTRY_ENTRY_SCHEMA, { lookFirstIn: "records" });
  const issues = [...(await entryValidator)(value).errors];
  const tool = isRecord(value) ? value.tool : undefined;
  if (isRecord(tool)) {
    const inTool = await synthesizedToolShape(tool);
    issues.push(...inTool.map((issue) => ({ ...issue, path: `/tool${issue.path}` })));
  }
  if (issues.length) {
    return issues.sort(compareIssues((issue) => issue.msg))
      .map((issue) => `${issue.path || "/"}: ${issue.msg}`);
  }
  const entry = value as RegistryEntry;
  if (entry.tool.tool_id !== toolId) return ["/tool/tool_id: differs from the file name"];
  const problems = await checkSynthesizedTool(entry.tool, entry.tool.source_chain.tools);
  return problems.map((problem) => problem.startsWith("/") ? `/tool${problem}` : problem);
}

export class SynthesizedRegistry {
  readonly folder: string;
  readonly #now: () => number;

  constructor(stateDir: string, now: () => number = Date.now) {
    this.folder = joinPath(stateDir, "synthesized");
    this.#now = now;
  }

  #path(toolId: string): string {
    if (!TOOL_ID.test(toolId)) throw new SynError("not_found", `not a tool id: ${toolId}`);
    return joinPath(this.folder, `${toolId}.json`);
  }

  /**
   * The entry of a tool; `undefined` when there is none. Throws `SynError`
   * `invalid_entry` (with `problems`) when its file is not a valid entry.
   */
  async get(toolId: string): Promise<RegistryEntry | undefined> {
    const path = this.#path(toolId);
    let text: string;
    try {
      const info = await Deno.lstat(path);
      if (!info.isFile) throw new SynError("invalid_entry", `${toolId}: not a regular file`);
      if (info.size > MAX_ENTRY_BYTES) {
        throw new SynError("invalid_entry", `${toolId}: larger than ${MAX_ENTRY_BYTES} bytes`);
      }
      text = await Deno.readTextFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (error) {
      throw invalidEntry(toolId, [(error as Error).message]);
    }
    const problems = await registryEntryProblems(toolId, value);
    if (problems.length) throw invalidEntry(toolId, problems);
    return value as RegistryEntry;
  }

  /**
   * Every valid tool, by id. A file that is not a valid entry is left out and reported
   * to `onSkip` (names that cannot be tool ids included).
   */
  async list(onSkip: (skipped: SkippedEntry) => void = () => {}): Promise<RegistryEntry[]> {
    const entries: RegistryEntry[] = [];
    for (const name of await this.#fileNames()) {
      const toolId = name.slice(0, -5);
      if (!TOOL_ID.test(toolId)) {
        onSkip({ file: name, problems: ["the file name is not a tool id"] });
        continue;
      }
      try {
        const entry = await this.get(toolId);
        if (entry) entries.push(entry);
      } catch (error) {
        const problems = error instanceof SynError && Array.isArray(error.data?.problems)
          ? error.data.problems as string[]
          : [(error as Error).message];
        onSkip({ file: name, problems });
      }
    }
    return entries.sort((a, b) => compareCodePoints(a.tool.tool_id, b.tool.tool_id));
  }

  async #fileNames(): Promise<string[]> {
    const names: string[] = [];
    try {
      for await (const file of Deno.readDir(this.folder)) {
        if (file.name.endsWith(".json")) names.push(file.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return names.sort(compareCodePoints);
  }

  async #write(entry: RegistryEntry): Promise<RegistryEntry> {
    // A state directory is private: folders 0700, files 0600.
    ensurePrivateDirSync(joinPath(this.folder, ".."));
    ensurePrivateDirSync(this.folder);
    await writeFileAtomic(this.#path(entry.tool.tool_id), JSON.stringify(entry, null, 2) + "\n", {
      mode: 0o600,
    });
    return entry;
  }

  /** Stores a newly synthesized tool as a DRAFT (replacing an earlier one of the same id). */
  async saveDraft(tool: SynthesizedTool, engine: string): Promise<RegistryEntry> {
    const now = new Date(this.#now()).toISOString();
    const old = await this.get(tool.tool_id).catch(() => undefined);
    return await this.#write({
      tool,
      status: "DRAFT",
      engine,
      created_at: old?.created_at ?? now,
      updated_at: now,
      validation: null,
    });
  }

  /**
   * The spec's workflow after validation: failed → DRAFT; passed → TESTING when approval
   * is required, else PROMOTED — but only on execution evidence (or replay evidence the
   * user accepted by name); a pass on replay alone stays TESTING.
   */
  async recordValidation(
    toolId: string,
    result: ValidationResult,
    options: PromotionOptions & {
      /** Whether a pass waits for the user's approval in TESTING (`require_approval`). */
      requireApproval: boolean;
    },
  ): Promise<RegistryEntry> {
    const { requireApproval } = options;
    const entry = await this.#require(toolId);
    const promotable = executed(result) || options.allowReplayOnly === true;
    const status: ToolStatus = !result.passed
      ? "DRAFT"
      : requireApproval || !promotable
      ? "TESTING"
      : "PROMOTED";
    const { replay_only: _old, ...rest } = entry;
    return await this.#write({
      ...rest,
      status,
      validation: result,
      ...(status === "PROMOTED" && !executed(result) ? { replay_only: true } : {}),
      updated_at: new Date(this.#now()).toISOString(),
    });
  }

  /**
   * `approve --promote`: only a tool that passed validation (TESTING) becomes PROMOTED, and
   * only on execution evidence unless `allowReplayOnly` (then the entry says so).
   */
  async promote(toolId: string, options: PromotionOptions = {}): Promise<RegistryEntry> {
    const entry = await this.#require(toolId);
    if (entry.status === "PROMOTED") return entry;
    if (entry.status === "DRAFT" || !entry.validation?.passed) {
      const why = entry.validation
        ? `its validation failed: ${entry.validation.reasons.join("; ")}`
        : "it has not been validated (syn synthesize validate " + toolId + ")";
      throw new SynError("not_promotable", `${toolId} is a DRAFT: ${why}`);
    }
    if (!executed(entry.validation) && !options.allowReplayOnly) {
      throw new SynError(
        "not_promotable",
        `${toolId} was validated on replay alone, never executed: validate it with --execute ` +
          "(--fresh-upstream for a chain that writes), or promote it with --allow-replay-only",
      );
    }
    return await this.#write({
      ...entry,
      status: "PROMOTED",
      ...(!executed(entry.validation) ? { replay_only: true } : {}),
      updated_at: new Date(this.#now()).toISOString(),
    });
  }

  /** Every valid PROMOTED tool (what chat offers); invalid files go to `onSkip`. */
  async promoted(onSkip?: (skipped: SkippedEntry) => void): Promise<SynthesizedTool[]> {
    return (await this.list(onSkip)).filter((entry) => entry.status === "PROMOTED").map((
      entry,
    ) => entry.tool);
  }

  async #require(toolId: string): Promise<RegistryEntry> {
    const entry = await this.get(toolId);
    if (!entry) {
      throw new SynError("not_found", `no synthesized tool ${toolId} (see syn synthesize list)`);
    }
    return entry;
  }
}

function invalidEntry(toolId: string, problems: string[]): SynError {
  return new SynError(
    "invalid_entry",
    `${toolId}.json is not a valid synthesized tool: ${problems.slice(0, 3).join("; ")}`,
    { problems },
  );
}
