import { relativePath, utf8ByteLength } from "../core/mod.ts";
import type { ToolContext, ToolDescriptor, ToolEffects } from "./tool_descriptor.ts";
import { resolveInRoot } from "./resolve_in_root.ts";
import { ToolFailure } from "./tool_failure.ts";

/** How long one file-system call may take before the sandbox is recycled. */
const FS_TIMEOUT_MS = 10_000;
/** `max_bytes` can ask for up to this much; a file larger than that is cut. */
export const MAX_READ_BYTES = 4 * 1024 * 1024;
/** `fs.write_text` refuses more text than this. */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;
/** `max_entries` can ask for up to this many; a folder is scanned up to 100,000 entries. */
export const MAX_LIST_ENTRIES = 10_000;
const LIST_SCAN_CAP = 100_000;

/** The path as the user sees it: relative to the root, `.` for the root itself. */
function shown(root: string, real: string): string {
  return relativePath(root, real) || ".";
}

function timeout(): number {
  return FS_TIMEOUT_MS;
}

const READS_ROOT: ToolEffects = Object.freeze({
  readOnly: true,
  destructive: false,
  idempotent: true,
  openWorld: false,
});

/** `fs.read_text {path, max_bytes=20000}` (Spectator §4). */
export const FS_READ_TEXT: ToolDescriptor = {
  name: "fs.read_text",
  description:
    "Read a UTF-8 text file inside the sandbox root. Files longer than max_bytes are cut at a character boundary and marked truncated.",
  argsSchema: {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, maxLength: 4096 },
      max_bytes: { type: "integer", minimum: 1, maximum: MAX_READ_BYTES, default: 20000 },
    },
    required: ["path"],
    additionalProperties: false,
  },
  effects: READS_ROOT,
  startsPrograms: false,
  timeoutMs: timeout,
  async run(args, context: ToolContext) {
    const root = context.policy.root;
    const path = await resolveInRoot(root, args.path as string);
    const value = await context.sandbox.request("read_text", {
      root,
      path,
      maxBytes: args.max_bytes,
    }, { timeoutMs: context.timeoutMs }) as { text: string; bytes: number; truncated: boolean };
    return { path: shown(root, path), ...value };
  },
};

/** `fs.list_dir {path=".", max_entries=200}` (Spectator §4). */
export const FS_LIST_DIR: ToolDescriptor = {
  name: "fs.list_dir",
  description:
    "List a folder inside the sandbox root, sorted by name: each entry's name, type (file, dir, symlink, other) and a file's size.",
  argsSchema: {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, maxLength: 4096, default: "." },
      max_entries: { type: "integer", minimum: 1, maximum: MAX_LIST_ENTRIES, default: 200 },
    },
    additionalProperties: false,
  },
  effects: READS_ROOT,
  startsPrograms: false,
  timeoutMs: timeout,
  async run(args, context: ToolContext) {
    const root = context.policy.root;
    const path = await resolveInRoot(root, args.path as string);
    const value = await context.sandbox.request("list_dir", {
      root,
      path,
      maxEntries: args.max_entries,
      scanCap: LIST_SCAN_CAP,
    }, { timeoutMs: context.timeoutMs }) as Record<string, unknown>;
    return { path: shown(root, path), ...value };
  },
};

/** `fs.write_text {path, text, overwrite=false}` (Spectator §4). */
export const FS_WRITE_TEXT: ToolDescriptor = {
  name: "fs.write_text",
  description:
    "Write a UTF-8 text file inside the sandbox root, creating missing folders. An existing file is replaced only with overwrite: true; a path that leads outside the root through a symlink is refused.",
  argsSchema: {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, maxLength: 4096 },
      text: { type: "string" },
      overwrite: { type: "boolean", default: false },
    },
    required: ["path", "text"],
    additionalProperties: false,
  },
  // Creating a file destroys nothing, but overwrite: true replaces one; the same text
  // written twice leaves the same file.
  effects: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  startsPrograms: false,
  timeoutMs: timeout,
  async run(args, context: ToolContext) {
    const root = context.policy.root;
    const text = args.text as string;
    // UTF-16 length × 3 bounds the UTF-8 size: cheap to check before counting.
    if (text.length * 3 > MAX_WRITE_BYTES && utf8ByteLength(text) > MAX_WRITE_BYTES) {
      throw new ToolFailure("too_large", `Text is larger than ${MAX_WRITE_BYTES} bytes`);
    }
    const path = await resolveInRoot(root, args.path as string, { allowMissing: true });
    if (path === root) throw new ToolFailure("io_error", "Path is the sandbox root folder");
    const value = await context.sandbox.writeText(
      relativePath(root, path),
      text,
      args.overwrite === true,
    );
    return { path: shown(root, path), ...value };
  },
};
