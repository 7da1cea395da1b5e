import { SynError } from "../core/mod.ts";

/** What `PatchError.data` holds: which operation failed, and why. */
export interface PatchErrorData extends Record<string, unknown> {
  /** Zero-based position of the operation in the patch; `null` when the patch itself is bad. */
  index: number | null;
  /** The operation's `op`, when it is a string. */
  op: string | null;
  /** The operation's `path`, when it is a string. */
  path: string | null;
  /** Why it failed, e.g. `path not found`. */
  reason: string;
}

/**
 * A patch that is malformed (code `invalid_patch`, from `validatePatch`) or that cannot be
 * applied to the document (code `patch_failed`, from `apply`). The message names the
 * operation: `patch operation 2 (remove /a/b) failed: path not found`.
 */
export class PatchError extends SynError {
  declare readonly data: PatchErrorData;

  constructor(code: "invalid_patch" | "patch_failed", data: PatchErrorData) {
    super(code, patchErrorMessage(code, data), data);
    this.name = "PatchError";
  }
}

function patchErrorMessage(code: string, data: PatchErrorData): string {
  if (data.index === null) return `patch is invalid: ${data.reason}`;
  const label = data.op !== null && data.path !== null
    ? ` (${data.op} ${data.path === "" ? '""' : data.path})`
    : "";
  const verb = code === "invalid_patch" ? "is invalid" : "failed";
  return `patch operation ${data.index}${label} ${verb}: ${data.reason}`;
}
