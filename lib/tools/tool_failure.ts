import { SynError } from "../core/mod.ts";
import type { ToolErrorCode } from "./types.ts";

/**
 * A refusal or failure inside a tool. Tools throw it; the runner turns it into a result
 * with `ok: false`, so a caller never sees it thrown.
 */
export class ToolFailure extends SynError {
  declare readonly code: ToolErrorCode;

  constructor(code: ToolErrorCode, message: string) {
    super(code, message);
    this.name = "ToolFailure";
  }
}
