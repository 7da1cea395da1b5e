/**
 * The registry of synthesized tools on disk: one JSON file per tool in
 * `<state>/synthesized/`, written atomically, with the spec's promotion workflow
 * `DRAFT → TESTING → PROMOTED`.
 */
import { join } from "node:path";
import { compareCodePoints, ensurePrivateDirSync, SynError, writeFileAtomic } from "../core/mod.ts";
import type { ValidationResult } from "./replay_validation.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

export type ToolStatus = "DRAFT" | "TESTING" | "PROMOTED";

export interface RegistryEntry {
  tool: SynthesizedTool;
  status: ToolStatus;
  engine: string;
  created_at: string;
  updated_at: string;
  validation: ValidationResult | null;
}

const TOOL_ID = /^[a-z0-9][a-z0-9_.-]{0,95}$/;

export class SynthesizedRegistry {
  readonly folder: string;
  readonly #now: () => number;

  constructor(stateDir: string, now: () => number = Date.now) {
    this.folder = join(stateDir, "synthesized");
    this.#now = now;
  }

  #path(toolId: string): string {
    if (!TOOL_ID.test(toolId)) throw new SynError("not_found", `not a tool id: ${toolId}`);
    return join(this.folder, `${toolId}.json`);
  }

  async get(toolId: string): Promise<RegistryEntry | undefined> {
    try {
      return JSON.parse(await Deno.readTextFile(this.#path(toolId))) as RegistryEntry;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  }

  /** Every tool, by id. */
  async list(): Promise<RegistryEntry[]> {
    const entries: RegistryEntry[] = [];
    try {
      for await (const file of Deno.readDir(this.folder)) {
        if (!file.isFile || !file.name.endsWith(".json")) continue;
        const entry = await this.get(file.name.slice(0, -5)).catch(() => undefined);
        if (entry) entries.push(entry);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return entries.sort((a, b) => compareCodePoints(a.tool.tool_id, b.tool.tool_id));
  }

  async #write(entry: RegistryEntry): Promise<RegistryEntry> {
    // A state directory is private: folders 0700, files 0600.
    ensurePrivateDirSync(join(this.folder, ".."));
    ensurePrivateDirSync(this.folder);
    await writeFileAtomic(this.#path(entry.tool.tool_id), JSON.stringify(entry, null, 2) + "\n", {
      mode: 0o600,
    });
    return entry;
  }

  /** Stores a newly synthesized tool as a DRAFT (replacing an earlier one of the same id). */
  async saveDraft(tool: SynthesizedTool, engine: string): Promise<RegistryEntry> {
    const now = new Date(this.#now()).toISOString();
    const old = await this.get(tool.tool_id);
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
   * is required, else PROMOTED.
   */
  async recordValidation(
    toolId: string,
    result: ValidationResult,
    requireApproval: boolean,
  ): Promise<RegistryEntry> {
    const entry = await this.#require(toolId);
    const status: ToolStatus = !result.passed ? "DRAFT" : requireApproval ? "TESTING" : "PROMOTED";
    return await this.#write({
      ...entry,
      status,
      validation: result,
      updated_at: new Date(this.#now()).toISOString(),
    });
  }

  /** `approve --promote`: only a tool that passed validation (TESTING) becomes PROMOTED. */
  async promote(toolId: string): Promise<RegistryEntry> {
    const entry = await this.#require(toolId);
    if (entry.status === "PROMOTED") return entry;
    if (entry.status === "DRAFT" || !entry.validation?.passed) {
      const why = entry.validation
        ? `its validation failed: ${entry.validation.reasons.join("; ")}`
        : "it has not been validated (syn synthesize validate " + toolId + ")";
      throw new SynError("not_promotable", `${toolId} is a DRAFT: ${why}`);
    }
    return await this.#write({
      ...entry,
      status: "PROMOTED",
      updated_at: new Date(this.#now()).toISOString(),
    });
  }

  /** Every PROMOTED tool (what chat offers). */
  async promoted(): Promise<SynthesizedTool[]> {
    return (await this.list()).filter((entry) => entry.status === "PROMOTED").map((entry) =>
      entry.tool
    );
  }

  async #require(toolId: string): Promise<RegistryEntry> {
    const entry = await this.get(toolId);
    if (!entry) {
      throw new SynError("not_found", `no synthesized tool ${toolId} (see syn synthesize list)`);
    }
    return entry;
  }
}
