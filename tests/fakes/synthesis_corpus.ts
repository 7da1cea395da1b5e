import {
  DEFAULT_SYNTHESIZE_CONFIG,
  type SynthesizeConfig,
  type ToolEvent,
} from "../../lib/synthesize/mod.ts";
import { MemoryEventStore } from "./memory_event_store.ts";

/**
 * `sessions` sessions of `kb.search` → `kb.fetch`: the search finds one doc, the fetch
 * takes its id. `latencyMs` 0 is a corpus that records no latency.
 */
export function searchFetchSessions(
  sessions: number,
  options: { latencyMs?: number } = {},
): ToolEvent[] {
  const latency_ms = options.latencyMs ?? 100;
  return Array.from({ length: sessions }, (_, index) => {
    const doc_id = `doc-${1000 + index}`;
    const session_id = `s${String(index).padStart(3, "0")}`;
    const ts = 1_700_000_000 + index * 60;
    const event = { session_id, outcome: "SUCCESS" as const, latency_ms };
    return [
      {
        ...event,
        event_id: `e${index}-0`,
        tool_id: "kb.search",
        input_params: { query: `question ${index}` },
        output_summary: JSON.stringify({ hits: [{ doc_id }] }),
        ts,
        ts_ms: ts * 1000,
      },
      {
        ...event,
        event_id: `e${index}-1`,
        tool_id: "kb.fetch",
        input_params: { doc_id, format: "md" },
        output_summary: `the text of ${doc_id}`,
        ts: ts + 1,
        ts_ms: (ts + 1) * 1000,
      },
    ];
  }).flat();
}

/** A store in memory holding `events`. */
export async function memoryStoreWith(events: readonly ToolEvent[]): Promise<MemoryEventStore> {
  const store = new MemoryEventStore();
  await store.append(events);
  return store;
}

/** The spec's defaults with some `synthesis` and `validation` keys changed. */
export function synthesizeConfig(
  changes: {
    synthesis?: Partial<SynthesizeConfig["synthesis"]>;
    validation?: Partial<SynthesizeConfig["validation"]>;
    llm?: Partial<SynthesizeConfig["llm"]>;
  } = {},
): SynthesizeConfig {
  const base = structuredClone(DEFAULT_SYNTHESIZE_CONFIG);
  return {
    synthesis: { ...base.synthesis, ...changes.synthesis },
    validation: { ...base.validation, ...changes.validation },
    llm: { ...base.llm, ...changes.llm },
  };
}

/** A temporary state folder, removed on dispose. */
export async function tempStateDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "syn_synthesis_" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}
