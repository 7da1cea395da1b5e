import { readJsonl } from "../lib/core/mod.ts";
import { loadSchemaStore, type SchemaStore } from "../lib/schema/mod.ts";
import { recordSchemas } from "../lib/generate/testdata/record_schemas.ts";
import { CONFORMANCE_SCHEMAS, sharedPath } from "./fakes/shared.ts";

let reference: Promise<SchemaStore> | undefined;

/**
 * The schema set generated assets are checked against: the conformance 0.7.3 copy in
 * `../shared` when it is there, else our own embedded set (equivalent to it, which
 * `tests/schema_conformance_test.ts` proves wherever `../shared` exists). So these tests
 * run in a clone without `../shared` too.
 */
export function referenceStore(): Promise<SchemaStore> {
  reference ??= (async () => {
    const directory = sharedPath(CONFORMANCE_SCHEMAS);
    try {
      await Deno.stat(directory);
      return await loadSchemaStore({ schemasDir: directory });
    } catch {
      console.warn(
        "../shared is not present: checking generated assets against the embedded schemas",
      );
      return await loadSchemaStore();
    }
  })();
  return reference;
}

/**
 * A validator service over real TCP (NDJSON JSON-RPC) that validates with the
 * reference schema set (see {@linkcode referenceStore}) and counts what it is asked: `MCP_ENDPOINT=tcp` tests point
 * `syn` at it to prove the validator is called, and how often.
 */
export interface CountingValidator {
  port: number;
  env: Record<string, string>;
  readonly calls: number;
  readonly connections: number;
  close(): Promise<void>;
}

export async function startCountingValidator(): Promise<CountingValidator> {
  const store: SchemaStore = await referenceStore();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let calls = 0;
  let connections = 0;
  const open = new Set<Deno.Conn>();
  const tasks: Promise<void>[] = [];
  const serve = async (conn: Deno.Conn) => {
    connections++;
    open.add(conn);
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let buffer = "";
    try {
      for await (const chunk of conn.readable) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (!line.trim()) continue;
          const request = JSON.parse(line);
          let result: unknown = { ok: false, reason: "unsupported" };
          if (request.method === "validate_asset") {
            calls++;
            const asset = { ...request.params.asset };
            delete asset.$schema;
            result = { ...store.validate(asset, "synesthetic-asset") };
            if (!(result as { ok: boolean }).ok) {
              (result as Record<string, unknown>).reason = "validation_failed";
            }
          }
          if (request.id === undefined) continue;
          await conn.write(
            encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }) + "\n"),
          );
        }
      }
    } catch {
      // the client went away
    } finally {
      open.delete(conn);
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) tasks.push(serve(conn));
    } catch {
      // listener closed
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    port,
    env: { MCP_ENDPOINT: "tcp", MCP_HOST: "127.0.0.1", MCP_PORT: String(port) },
    get calls() {
      return calls;
    },
    get connections() {
      return connections;
    },
    async close() {
      listener.close();
      await accepting;
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await Promise.all(tasks);
    },
  };
}

/** Every file under a folder, recursively. */
export function* filesUnder(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* filesUnder(path);
    else if (entry.isFile) yield path;
  }
}

/** A temporary working folder removed on dispose. */
export function tempDir(prefix = "syn_generate_"): { path: string } & Disposable {
  const path = Deno.makeTempDirSync({ prefix });
  return { path, [Symbol.dispose]: () => Deno.removeSync(path, { recursive: true }) };
}

const RECORD_STREAMS = ["generator", "external", "critic", "patches"] as const;

/**
 * Checks every record of every Labs log under `logDir` against its schema in
 * `schemas/records/`; returns how many records were checked.
 */
export async function assertLogRecordsValid(logDir: string): Promise<number> {
  const store = await recordSchemas();
  let checked = 0;
  for (const stream of RECORD_STREAMS) {
    let records: unknown[];
    try {
      records = await readJsonl(`${logDir}/${stream}.jsonl`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    for (const record of records) {
      const verdict = store.validate(record, stream);
      if (!verdict.ok) {
        throw new Error(
          `${stream}.jsonl record does not fit its schema: ${JSON.stringify(verdict.errors)}\n${
            JSON.stringify(record).slice(0, 500)
          }`,
        );
      }
      checked++;
    }
  }
  return checked;
}

/** A loopback port nothing listens on (bound, then closed). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
