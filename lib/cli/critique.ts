import { redactValue, resolvePath, systemClock, UsageError } from "../core/mod.ts";
import { LabsLog, resolveLogDir, runCritique } from "../generate/mod.ts";
import { openValidator } from "../mcp/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { readDocument } from "./_read_document.ts";
import { type CliIo, EXIT } from "./io.ts";

/** An asset file over the validator's 1 MiB cap could not be validated: refused while read. */
const MAX_ASSET_BYTES = 1024 * 1024;

export const help = `syn critique — validate an asset and check its quality

Usage:
  syn critique <asset.json> [--log-dir DIR]

Validates the asset through the validator service (MCP_ENDPOINT etc., default: our own
'syn mcp-serve --stdio' child) and runs quality checks: controls or modulations that
target uniforms or parameters that do not exist, a synth type or option Tone.js cannot
take (volume "loud", an envelope attack that is neither seconds nor "8n", an unknown
oscillator type…), a silent tone (volume at or below -60 dB), haptic intensity outside
[0, 1], control defaults outside their ranges, uniforms the fragment shader never uses,
missing mouse.x → shader.u_px / inverted mouse.y → shader.u_py controls, a fragment
shader without main().

Prints the verdict as JSON and appends it to critic.jsonl under the log root
(--log-dir, else LABS_LOG_DIR, else meta/output/labs).
Exit 0 valid with no error-level issue, 1 otherwise, 2 bad usage or unreadable file.

Examples:
  syn generate "a pulsing blue circle" --out assets/ > /dev/null
  syn critique assets/pulsing-blue-circle-*.json
  syn examples get canonical-baseline.json --raw > baseline.json
  syn critique baseline.json
`;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("critique", args, {
    "log-dir": { type: "string" },
  });
  if (positionals.length !== 1) throw new UsageError("give exactly one asset file");
  const logDir = resolveLogDir(values["log-dir"], { config: io.config, cwd: io.cwd });
  const path = resolvePath(io.cwd, positionals[0]);
  const asset = await readDocument(io, path, { stdinName: "-", maxBytes: MAX_ASSET_BYTES });
  const secrets = io.config.secrets;
  const log = new LabsLog(logDir, secrets);
  await log.prepare();
  const validator = await openValidator({
    config: io.config,
    selfCommand: io.selfCommand,
    warn: (line) =>
      void io.stderr(redactValue(`syn critique: ${line.replace(/\n$/, "")}\n`, secrets)),
    closeAfter: 1, // one validation, then the child exits while the record is written
  });
  try {
    const record = await runCritique(asset, {
      validator,
      log,
      clock: systemClock,
      assetPath: path,
    });
    await io.stdout(JSON.stringify(redactValue(record, secrets), null, 2) + "\n");
    // A schema-invalid asset has at least its schema errors, even when no quality check fired.
    const errors = record.issues.filter((issue) => issue.severity === "error").length +
      (record.mcp_result.ok ? 0 : Math.max(1, record.mcp_result.errors?.length ?? 0));
    const verdict = record.mcp_result;
    const schema = verdict.ok
      ? "schema valid"
      : verdict.reason === undefined || verdict.reason === "validation_failed"
      ? "schema invalid"
      : `schema not checked (${verdict.reason}: ${verdict.detail ?? "no detail"})`;
    await io.stderr(
      redactValue(
        `syn critique: ${
          record.ok ? "ok" : "not ok"
        }: ${schema}, ${record.issues.length} issue(s), ${errors} error(s)\n`,
        secrets,
      ),
    );
    return record.ok ? EXIT.ok : EXIT.failure;
  } finally {
    await validator.close();
  }
}
