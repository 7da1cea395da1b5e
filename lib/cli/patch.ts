import { redactValue, resolvePath, systemClock, UsageError } from "../core/mod.ts";
import { applyPatch, LabsLog, previewPatch, rateTarget, resolveLogDir } from "../generate/mod.ts";
import { openValidator } from "../mcp/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { readDocument } from "./_read_document.ts";
import { type CliIo, EXIT } from "./io.ts";

export const help = `syn patch — preview, apply and rate RFC 6902 patches to assets

Usage:
  syn patch preview <asset.json> <patch.json>
  syn patch apply   <asset.json> <patch.json> [--out FILE]
  syn patch rate    <asset.json|patch.json> <1-5> [--note TEXT]

preview  applies the patch in memory, validates the result through the validator
         service and prints the result, its canonical diff against the asset and the
         verdict; nothing is written but the log record.
apply    the same, then writes the result atomically — to --out FILE, or over the asset
         file — only when the result is valid and critique finds no error in it
         (failure critique_rejected otherwise). An invalid result is never written;
         a write that fails (--out naming a folder, a full disk) is reported and
         recorded like any other failure.
rate     records a rating from 1 to 5 (and an optional note) of an asset or a patch
         (a JSON array is a patch); the record's target_id matches the patch_id of its
         preview/apply records.

Every action appends a record to patches.jsonl under the log root (--log-dir, else
LABS_LOG_DIR, else meta/output/labs). Exit 0 ok, 1 patch failed or result invalid,
2 bad usage or unreadable file.

Options:
  --out FILE      apply: write the result here instead of over the asset
  --note TEXT     rate: a short note
  --log-dir DIR   Labs log root
  -h, --help      show this help

Examples:
  syn examples get canonical-baseline.json --raw > asset.json
  echo '[{"op":"replace","path":"/tone/synth/options/volume","value":-6}]' > louder.patch.json
  syn patch preview asset.json louder.patch.json
  syn patch apply asset.json louder.patch.json --out asset.v2.json
  syn patch rate asset.v2.json 4 --note "warmer, but too loud"
`;

/** Assets and patches over the validator's 1 MiB cap could not be validated: refused while read. */
const MAX_INPUT_BYTES = 1024 * 1024;

/** Reads one JSON file, given by its absolute path (the one the records keep). */
const readJson = (io: CliIo, path: string) =>
  readDocument(io, path, { stdinName: "-", maxBytes: MAX_INPUT_BYTES });

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("patch", args, {
    out: { type: "string" },
    note: { type: "string" },
    "log-dir": { type: "string" },
  });
  const [action, ...rest] = positionals;
  if (action !== "preview" && action !== "apply" && action !== "rate") {
    throw new UsageError(
      `give an action: preview, apply or rate${action ? `, not: ${action}` : ""}`,
    );
  }
  if (values.out !== undefined && action !== "apply") {
    throw new UsageError("--out applies to apply only");
  }
  if (values.note !== undefined && action !== "rate") {
    throw new UsageError("--note applies to rate only");
  }
  const logDir = resolveLogDir(values["log-dir"], { config: io.config, cwd: io.cwd });
  const secrets = io.config.secrets;
  const log = new LabsLog(logDir, secrets);
  await log.prepare();
  const print = (value: unknown) =>
    io.stdout(JSON.stringify(redactValue(value, secrets), null, 2) + "\n");

  if (action === "rate") {
    if (rest.length !== 2) throw new UsageError("rate takes a file and a rating from 1 to 5");
    const rating = Number(rest[1]);
    if (!/^[1-5]$/.test(rest[1].trim())) {
      throw new UsageError(`the rating must be a whole number from 1 to 5: ${rest[1]}`);
    }
    const targetPath = resolvePath(io.cwd, rest[0]);
    const target = await readJson(io, targetPath);
    const record = await rateTarget(target, rating, { log, clock: systemClock }, {
      targetPath,
      note: values.note,
    });
    await print(record);
    return EXIT.ok;
  }

  if (rest.length !== 2) throw new UsageError(`${action} takes an asset file and a patch file`);
  const assetPath = resolvePath(io.cwd, rest[0]);
  const patchPath = resolvePath(io.cwd, rest[1]);
  const asset = await readJson(io, assetPath);
  const patch = await readJson(io, patchPath);
  const validator = await openValidator({
    config: io.config,
    selfCommand: io.selfCommand,
    warn: (line) => void io.stderr(redactValue(`syn patch: ${line.replace(/\n$/, "")}\n`, secrets)),
    closeAfter: 1, // one validation, then the child exits while the record is written
  });
  try {
    const deps = { validator, log, clock: systemClock };
    const record = action === "preview"
      ? await previewPatch(asset, patch, deps, { assetPath, patchPath })
      : await applyPatch(asset, patch, deps, {
        assetPath,
        patchPath,
        outputPath: values.out === undefined ? assetPath : resolvePath(io.cwd, values.out),
      });
    await print(record);
    if (record.ok) {
      if (record.output_path) await io.stderr(`syn patch: wrote ${record.output_path}\n`);
      return EXIT.ok;
    }
    await io.stderr(
      redactValue(
        `syn patch: ${record.failure?.reason}: ${record.failure?.detail}${
          action === "apply" ? " (nothing written)" : ""
        }\n`,
        secrets,
      ),
    );
    return EXIT.failure;
  } finally {
    await validator.close();
  }
}
