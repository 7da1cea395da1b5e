/**
 * Replays the recorded exchange of the Python reference adapter v0.2.3 against
 * `syn mcp-serve --stdio` with the same conformance schema set (SYN_SCHEMAS_DIR /
 * SYN_EXAMPLES_DIR). Same `ok` verdicts, error paths at or below the reference's, the
 * same patch; the deliberate differences (docs/mcp.md) are asserted as such.
 */
import assert from "node:assert/strict";
import {
  CONFORMANCE_EXAMPLES,
  CONFORMANCE_MCP,
  CONFORMANCE_SCHEMAS,
  sharedMissing,
  sharedPath,
} from "./fakes/shared.ts";
import { LineChannel, spawnStdioServer } from "./mcp_channels.ts";

Deno.test({
  name: "the reference adapter's recorded exchange replays with the same verdicts",
  ignore: sharedMissing(CONFORMANCE_MCP) || sharedMissing(CONFORMANCE_SCHEMAS),
  async fn() {
    const requests = (await Deno.readTextFile(
      sharedPath(`${CONFORMANCE_MCP}/mcp-v0.2.3.requests.ndjson`),
    )).split("\n").filter((line) => line !== "");
    const expected = (await Deno.readTextFile(
      sharedPath(`${CONFORMANCE_MCP}/mcp-v0.2.3.jsonschema-4.26.responses.ndjson`),
    )).split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
    assert.equal(requests.length, expected.length);

    const server = spawnStdioServer({
      env: {
        SYN_SCHEMAS_DIR: sharedPath(CONFORMANCE_SCHEMAS),
        SYN_EXAMPLES_DIR: sharedPath(CONFORMANCE_EXAMPLES),
      },
    });
    const channel = new LineChannel(server.connection);
    const ours: Record<string, unknown>[] = [];
    try {
      await channel.send(requests.join("\n") + "\n");
      for (let index = 0; index < requests.length; index++) {
        ours.push(JSON.parse(await channel.readLine()));
      }
    } finally {
      channel.close();
      assert.equal((await server.stop()).code, 0);
    }

    for (let index = 0; index < requests.length; index++) {
      const reference = expected[index];
      const reply = ours[index];
      assert.equal(reply.jsonrpc, "2.0");
      assert.deepEqual(reply.id, reference.id, `line ${index + 1}: id echoed`);
      const request = (() => {
        try {
          return JSON.parse(requests[index]);
        } catch {
          return undefined;
        }
      })();
      const method = request?.method;
      const result = reply.result as Record<string, unknown> | undefined;
      const referenceResult = reference.result as Record<string, unknown> | undefined;
      switch (method) {
        case "list_schemas": {
          const names = (list: unknown) => (list as { name: string }[]).map((entry) => entry.name);
          assert.deepEqual(names(result!.schemas), names(referenceResult!.schemas));
          break;
        }
        case "list_examples": {
          const components = (result!.examples as { component: string }[]).map((e) => e.component);
          for (const entry of referenceResult!.examples as { component: string }[]) {
            assert.ok(components.includes(entry.component), entry.component);
          }
          const sorted = [...components].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          assert.deepEqual(components, sorted, "sorted by component");
          break;
        }
        case "get_example": {
          // Deliberate difference: the example comes back as stored (the reference renames
          // its `$schema` marker to `$schemaRef`); everything else is identical.
          const unmarked = (value: unknown) => {
            const { $schema: _a, $schemaRef: _b, ...rest } = value as Record<string, unknown>;
            return rest;
          };
          assert.deepEqual(unmarked(result!.example), unmarked(referenceResult!.example));
          assert.deepEqual({ ...result, example: null }, { ...referenceResult, example: null });
          break;
        }
        case "validate_asset": {
          assert.equal(result!.ok, referenceResult!.ok);
          assert.equal(result!.reason, referenceResult!.reason);
          const referencePaths = (referenceResult!.errors as { path: string }[]).map((e) => e.path);
          for (const error of result!.errors as { path: string }[]) {
            assert.ok(
              referencePaths.some((path) =>
                error.path === path || error.path.startsWith(path + "/")
              ),
              `${error.path} is at or below one of ${referencePaths.join(", ")}`,
            );
          }
          break;
        }
        case "nope":
          // The adapter spec's error model (§6): the same result as the reference.
          assert.deepEqual(result, referenceResult);
          assert.equal(reply.error, undefined);
          break;
        case undefined:
          // Deliberate difference: -32700 Parse error instead of -32603.
          assert.equal((reply.error as { code: number }).code, -32700);
          assert.equal(reply.id, null);
          break;
        default:
          assert.deepEqual(reply, reference, `line ${index + 1}: ${method}`);
      }
    }
  },
});
