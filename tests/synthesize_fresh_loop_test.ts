/**
 * The synthesis loop on a stateful upstream with the traps of real agent workloads
 * (`tests/fakes/fake_vehicle_mcp.ts`): writes ordered by hidden state, a counter that is the
 * same in every session, a credential argument, a value needed two steps later. Recorded
 * through the proxy, synthesized, validated by execution in fresh upstreams, promoted, and
 * served back — against an upstream that answers out of order.
 */
import assert from "node:assert/strict";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { runMcpProxy } from "../lib/proxy/mod.ts";
import {
  readSessionOrigins,
  SynthesizedRegistry,
  type SynthesizedTool,
} from "../lib/synthesize/mod.ts";
import { REDACTED } from "../lib/core/mod.ts";
import { childEnv } from "./fakes/child_env.ts";
import { runSyn } from "./fakes/cli_io.ts";

const FAKE = new URL("./fakes/fake_vehicle_mcp.ts", import.meta.url).pathname;
const DENO = Deno.execPath();
const TOKEN = "tok-shared-credential-123";

/** One client session through an in-process proxy in front of a fresh fake upstream. */
async function throughProxy<T>(
  stateDir: string,
  options: { sessionId: string; allowWrites?: boolean; upstreamArgs?: string[] },
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const proxy = runMcpProxy({
    upstream: {
      kind: "stdio",
      command: DENO,
      args: ["run", "-A", FAKE, ...options.upstreamArgs ?? []],
      env: childEnv(),
    },
    stateDir,
    allowWrites: options.allowWrites ?? false,
    secrets: [],
    report: () => {},
    transport: serverSide,
    sessionId: options.sessionId,
  });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  try {
    await client.connect(clientSide);
    return await use(client);
  } finally {
    await client.close();
    await proxy;
  }
}

type Json = Record<string, unknown>;
const parsed = (result: { content?: unknown }) =>
  JSON.parse((result.content as { text: string }[])[0].text) as Json;

/** The calls of one recorded session; `n` varies what the agent asked for. */
async function agentSession(client: Client, n: number): Promise<void> {
  const call = (name: string, args: Json = {}) => client.callTool({ name, arguments: args });
  await call("get_status");
  await call("lock_doors");
  await call("press_brake");
  await call("start_engine");
  const placed = parsed(await call("place_order", { item: `item-${n}` }));
  await call("order_status", { order_id: placed.order_id });
  await call("send_message", { to: `user${n}`, text: `hello ${n}`, token: TOKEN });
  const cities = ["Rivermist", "Stonebrook", "Oakridge"];
  const first = parsed(await call("get_zipcode", { city: cities[n % 3] }));
  const second = parsed(await call("get_zipcode", { city: cities[(n + 1) % 3] }));
  await call("distance", { from_zip: first.zipcode, to_zip: second.zipcode });
}

async function synthesize(stateDir: string, chain: string, cwd: string): Promise<SynthesizedTool> {
  const run = await runSyn(["synthesize", "run", chain, "--state-dir", stateDir, "--json"], {
    cwd,
  });
  assert.equal(run.code, 0, run.stderr);
  const [written] = (JSON.parse(run.stdout) as { tools: { tool: SynthesizedTool }[] }).tools;
  return written.tool;
}

const inputsOf = (tool: SynthesizedTool) => tool.steps.map((step) => step.inputs);

Deno.test({
  name:
    "the loop keeps hidden order, learns no session value or secret as a constant, and executes before promotion",
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_fresh_loop_" });
  try {
    const stateDir = `${dir}/state`;
    for (let n = 0; n < 10; n++) {
      await throughProxy(
        stateDir,
        { sessionId: `train-${n}` },
        (client) => agentSession(client, n),
      );
    }
    // Each session remembers how its upstream was started, and what it marks read-only.
    const origins = await readSessionOrigins(stateDir);
    assert.equal(origins.size, 10);
    const origin = origins.get("train-3")!;
    assert.deepEqual(origin.upstream, {
      transport: "stdio",
      command: [DENO, "run", "-A", FAKE],
    });
    assert.deepEqual(origin.read_only_tools, [
      "distance",
      "get_status",
      "get_zipcode",
      "order_status",
    ]);

    const start = await synthesize(
      stateDir,
      "lock_doors>press_brake>start_engine>place_order>order_status",
      dir,
    );
    // Writes never overlap, whatever their wiring says.
    assert.deepEqual(start.steps.map((step) => step.read_only ?? false), [
      false,
      false,
      false,
      false,
      true,
    ]);
    assert.ok(start.steps.every((step) => !step.parallelizable_with?.length));
    // 12446 is in every sample, but the session returned it: a wire, not a constant.
    assert.deepEqual(inputsOf(start)[4], { order_id: { wire: 3 } });
    assert.equal(JSON.stringify(start).includes("12446"), false);

    const message = await synthesize(stateDir, "order_status>send_message", dir);
    assert.deepEqual(message.steps[1].inputs.token, { parameter: "step1_token" });
    assert.ok((message.parameters.required as string[]).includes("step1_token"));
    assert.equal(JSON.stringify(message).includes(TOKEN), false);

    const zips = await synthesize(stateDir, "get_zipcode>get_zipcode>distance", dir);
    assert.deepEqual(inputsOf(zips)[2], { from_zip: { wire: 0 }, to_zip: { wire: 1 } });
    assert.deepEqual(zips.steps.map((step) => step.read_only), [true, true, true]);

    // Replay alone never promotes.
    const replayOnly = await runSyn(
      ["synthesize", "validate", start.tool_id, "--state-dir", stateDir, "--json"],
      { cwd: dir },
    );
    assert.equal(replayOnly.code, 0, replayOnly.stderr);
    const refused = await runSyn(
      ["synthesize", "approve", start.tool_id, "--promote", "--state-dir", stateDir],
      { cwd: dir },
    );
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /replay alone.*--allow-replay-only/);

    // Executed in fresh upstreams started as recorded: every step's output and every later
    // output equal the original calls'.
    for (const tool of [start, message, zips]) {
      const validated = await runSyn([
        "synthesize",
        "validate",
        tool.tool_id,
        "--state-dir",
        stateDir,
        "--json",
        "--execute",
        "--fresh-upstream",
        "--jobs",
        "2",
      ], { cwd: dir });
      assert.equal(validated.code, 0, `${tool.tool_id}: ${validated.stdout}\n${validated.stderr}`);
      const verdict = JSON.parse(validated.stdout) as {
        validation: {
          evidence: string;
          execution: {
            mode: string;
            steps: { compared: number; equal: number };
            later: { compared: number; equal: number };
            failures: unknown[];
          };
        };
      };
      const { execution } = verdict.validation;
      assert.equal(verdict.validation.evidence, "execution");
      assert.equal(execution.mode, "fresh");
      assert.deepEqual(execution.failures, []);
      assert.equal(execution.steps.equal, execution.steps.compared);
      assert.equal(execution.later.equal, execution.later.compared);
      assert.ok(execution.steps.compared >= 10 * tool.steps.length);
      assert.match(validated.stderr, /fresh upstream for train-/);
      const approved = await runSyn(
        ["synthesize", "approve", tool.tool_id, "--promote", "--state-dir", stateDir],
        { cwd: dir },
      );
      assert.equal(approved.code, 0, approved.stderr);
    }

    // Served back against an upstream that answers out of order: the engine always starts,
    // and the composite returns every step's output.
    const registry = new SynthesizedRegistry(stateDir);
    assert.equal((await registry.get(start.tool_id))?.status, "PROMOTED");
    for (let round = 0; round < 4; round++) {
      const stateFile = `${dir}/vehicle-${round}.json`;
      await throughProxy(stateDir, {
        sessionId: `held-out-${round}`,
        allowWrites: true,
        upstreamArgs: ["--jitter-ms", "20", "--state-out", stateFile],
      }, async (client) => {
        const bad = await client.callTool({
          name: `composite.${start.tool_id}`,
          arguments: { step3_item: "x", surprise: 1 },
        });
        assert.equal(bad.isError, true);
        assert.match(JSON.stringify(bad.content), /surprise|additional/);
        const status = parsed(await client.callTool({ name: "get_status", arguments: {} }));
        assert.equal(status.locked, false, "a refused call reaches no step");

        const result = await client.callTool({
          name: `composite.${start.tool_id}`,
          arguments: { step3_item: `held-${round}` },
        });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        const steps = (result.structuredContent as { steps: { tool: string; ok: boolean }[] })
          .steps;
        assert.deepEqual(steps.map((step) => step.tool), start.source_chain.tools);
        assert.ok(steps.every((step) => step.ok));
        const text = (result.content as { text: string }[])[0].text;
        for (const tool of start.source_chain.tools) {
          assert.match(text, new RegExp(`: ${tool} — ok`));
        }
      });
      const final = JSON.parse(await Deno.readTextFile(stateFile)) as Json;
      assert.equal(final.engine, true, `round ${round}: the engine started`);
      assert.deepEqual(final.orders, { "12446": `held-${round}` });
    }

    // The credential was never written: not in the event store, the origins or the registry.
    const leaks: string[] = [];
    const walk = async (folder: string) => {
      for await (const entry of Deno.readDir(folder)) {
        const path = `${folder}/${entry.name}`;
        if (entry.isDirectory) await walk(path);
        else if (new TextDecoder().decode(await Deno.readFile(path)).includes(TOKEN)) {
          leaks.push(path);
        }
      }
    };
    await walk(stateDir);
    assert.deepEqual(leaks, []);
    const masked = await runSyn(["synthesize", "mine", "--state-dir", stateDir], { cwd: dir });
    assert.equal(masked.code, 0, masked.stderr);
    assert.ok(REDACTED.length > 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
