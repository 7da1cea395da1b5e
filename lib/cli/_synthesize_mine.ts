import { UsageError } from "../core/mod.ts";
import { type MinedChain, mineStoredChains, openEventStore } from "../synthesize/mod.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";

/** `syn synthesize mine`: frequent chains of the stored sessions, as a table or JSON. */
export async function mine(
  args: string[],
  io: CliIo,
  helpers: {
    help: string;
    stateDirectory(io: CliIo, flag: string | undefined): string;
    printable(text: string): string;
  },
): Promise<number> {
  const { values, positionals } = parseCommandArgs("synthesize mine", args, {
    "min-support": { type: "string" },
    "min-length": { type: "string" },
    "max-length": { type: "string" },
    top: { type: "string" },
    "collapse-repeats": { type: "boolean" },
    "state-dir": { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  if (positionals.length) {
    throw new UsageError(`unexpected argument: ${helpers.printable(positionals[0])}`);
  }
  const minLength =
    numberFlag("min-length", values["min-length"], { integer: true, min: 1, max: 50 }) ?? 2;
  const options = {
    minSupport: numberFlag("min-support", values["min-support"], { min: 0, max: 1 }) ?? 0,
    minLength,
    maxLength:
      numberFlag("max-length", values["max-length"], { integer: true, min: minLength, max: 50 }) ??
        6,
    top: numberFlag("top", values.top, { integer: true, min: 1, max: 100_000 }) ?? 20,
    collapseRepeats: values["collapse-repeats"] ?? false,
  };
  await using store = await openEventStore(
    helpers.stateDirectory(io, values["state-dir"]),
    io.config.eventStore,
  );
  const mined = await mineStoredChains(store, options);
  if (values.json) {
    const document = {
      store: store.location,
      sessions: mined.sessions,
      latency_recorded: mined.latency_recorded,
      options,
      chains: mined.chains,
    };
    await io.stdout(`${JSON.stringify(document, null, 2)}\n`);
  } else {
    await io.stdout(
      table(mined.chains, mined.sessions, mined.latency_recorded, helpers.printable),
    );
  }
  return EXIT.ok;
}

function table(
  chains: MinedChain[],
  sessions: number,
  latencyRecorded: boolean,
  printable: (text: string) => string,
): string {
  const columns = latencyRecorded
    ? "support, confidence, occurrences, mean latency"
    : "support, confidence, occurrences; no latency recorded";
  const lines = [`${chains.length} chains from ${sessions} sessions (${columns})`];
  for (const chain of chains) {
    const latency = latencyRecorded ? `  ${chain.avg_latency_ms.toFixed(0).padStart(6)} ms` : "";
    lines.push(
      `${(chain.support * 100).toFixed(1).padStart(6)}%  ${chain.confidence.toFixed(2)}  ${
        String(chain.occurrences).padStart(6)
      }${latency}  ${printable(chain.chain)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
