import {
  appendJsonl,
  dirnameOf,
  errorMessage,
  neutralizeTerminalText,
  parseJson,
  resolvePath,
  SynError,
  UsageError,
} from "../core/mod.ts";
import {
  baselineRegistry,
  DEFAULT_SHELL_ALLOW,
  type ToolDescriptor,
  type ToolResult,
} from "../tools/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { openToolSession, toolSessionOptions } from "./_tool_session_options.ts";
import { SANDBOX_FLAGS } from "./_sandbox_flags.ts";
import { type CliIo, EXIT } from "./io.ts";
import { readDocument } from "./_read_document.ts";

export const help = `syn tools — the tools an agent may call, and a sandbox to run one by hand

Usage:
  syn tools list [--json]
  syn tools run <tool> --root <dir> [--args '<json>' | --args-file <file|->]
                [--grant <cap>]... [--allow-host <host>]... [--shell-allow <exe,...>]
                [--timeout-s N] [--state-dir <dir>] [--no-cache] [--no-bubblewrap]
                [--shell-without-bubblewrap] [--trace <file.jsonl>]

'run' executes one call in the sandbox and prints the tool result on stdout:
  {"id": "t1", "tool": "fs.read_text", "ok": true, "output": {...}, "error": null}
A refusal is a result too: "ok": false, "error": {"code": "path_escape", "message": "..."}.
Exit codes: 0 the call succeeded, 1 the tool refused or failed, 2 bad usage.

The tools (defaults in brackets):
  fs.read_text  {path, max_bytes=20000}        a text file; longer ones are cut, truncated: true
  fs.list_dir   {path=".", max_entries=200}    a folder, sorted by name
  fs.write_text {path, text, overwrite=false}  creates folders; existing file needs overwrite
  shell.exec    {cmd, timeout_s=20}            one allowlisted program, no shell at all
  http.get      {url, use_cache=true}          needs a net capability

What the sandbox enforces:
  Files     Every path — relative, or absolute — must resolve inside --root, after
            following symlinks. '..', other folders, sibling folders such as
            <root>-evil, NUL bytes and /proc are refused (path_escape). The tools run in
            a worker whose Deno permissions allow reading and writing --root only; what
            it opened is checked again by descriptor, so a symlink swapped in late is
            refused too.
  Shell     'cmd' is split like a shell would (quotes respected) but never run by one:
            ; & | < > \` $ ( ) globs and ~ are refused (not_allowed). The program must be
            on the allowlist (${DEFAULT_SHELL_ALLOW.join(" ")};
            --shell-allow adds more). Interpreters, launchers and programs that start
            others (sh, bash, python3.11, perl5.36.0, vim.basic, node, env, xargs,
            find, taskset, setarch, ...), their hard links and #! scripts are refused
            even when added; a program syn has no option table for runs only inside
            bubblewrap.
            Options must be the program's own, named unambiguously (any prefix its
            getopt would expand counts: wc --f is --files0-from); those that read
            other files, recurse, write, set the clock or never end are refused.
            Path arguments and option values are checked like file paths. The program
            runs with an empty environment (PATH and LANG only), in --root, with a
            timeout that kills its whole process group and capped output, inside
            bubblewrap (no network, only system folders read-only, --root read-write).
            bwrap is looked for in PATH; where it is missing or cannot run, shell.exec
            is refused (sandbox_unavailable) unless --shell-without-bubblewrap accepts
            running on the argv checks alone (the result then says "isolation": "argv").
  Network   http.get needs a capability: --grant net (any public host; only the
            --allow-host hosts when any are given) or --grant net:<host> (that exact
            host, even outside --allow-host). Only http and https. A host that resolves
            to a loopback, private or link-local address (127.0.0.1, 0.0.0.0, 10.x,
            169.254.x, ::1 and their other spellings) is refused unless that exact host
            was granted. Redirects are followed by hand, each hop checked again.
            Answers are cached in <state-dir>/http_cache.sqlite, keyed by the full URL;
            one is served only to a session that could fetch it itself (every host on
            the way allowed now, an exact grant where the fetch used one).
  Anything  Environment, system information, FFI and other programs are denied.

Options:
  --root DIR           the sandbox root (required for run; must exist)
  --args JSON          the call's arguments as a JSON object (default {})
  --args-file FILE     read the arguments from FILE ('-': standard input)
  --grant CAP          grant a capability: net, net:<host> (repeatable)
  --allow-host HOST    the global network allowlist (repeatable)
  --shell-allow LIST   comma-separated programs added to the shell allowlist
  --timeout-s N        the longest the call may take, in seconds (default: the tool's own)
  --state-dir DIR      where the http cache lives (default $SYN_STATE_DIR, else .syn/)
  --no-cache           do not read or write the http cache
  --no-bubblewrap      never run shell.exec inside bubblewrap (it is then refused, unless
                       --shell-without-bubblewrap is given too)
  --shell-without-bubblewrap
                       let shell.exec run without bubblewrap (where it is missing, cannot
                       run, or is off). Unsafe against any other local process that can
                       write in the root: the path checks run before the program opens
                       the path, so a symlink swapped in between is followed outside the
                       root. Install bubblewrap instead: apt-get install bubblewrap
  --trace FILE         append the call's tool_start / tool_done events to FILE (JSONL)
  --json               (list) print the tools and their argument schemas as JSON
  -h, --help           show this help

Examples:
  syn tools list
  syn tools run fs.list_dir --root ./work
  syn tools run fs.read_text --root ./work --args '{"path": "notes.md", "max_bytes": 200}'
  syn tools run shell.exec --root ./work --args '{"cmd": "grep -n TODO notes.md"}'
  syn tools run http.get --root ./work --grant net:example.com \\
      --args '{"url": "https://example.com/"}'
`;

const MAX_ARGS_BYTES = 1024 * 1024;

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined) throw new UsageError("say 'list' or 'run <tool>' (see syn tools --help)");
  if (sub === "list") return await list(rest, io);
  if (sub === "run") return await runOne(rest, io);
  if (sub === "--help" || sub === "-h") {
    await io.stdout(help);
    return EXIT.ok;
  }
  throw new UsageError(`unknown tools subcommand: ${sub} (say 'list' or 'run')`);
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("tools list", args, {
    json: { type: "boolean" },
  });
  if (values.help) return await io.stdout(help), EXIT.ok;
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const tools = (await baselineRegistry()).list();
  if (values.json) {
    const listing = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      args_schema: tool.argsSchema,
    }));
    await io.stdout(`${JSON.stringify(listing, null, 2)}\n`);
  } else {
    await io.stdout(tools.map(describe).join("\n") + "\n");
  }
  return EXIT.ok;
}

/** `fs.read_text {path, max_bytes=20000}` and the description, for the plain listing. */
function describe(tool: ToolDescriptor): string {
  const properties = (tool.argsSchema.properties ?? {}) as Record<string, { default?: unknown }>;
  const args = Object.entries(properties).map(([name, schema]) =>
    schema.default === undefined ? name : `${name}=${JSON.stringify(schema.default)}`
  );
  return `${tool.name} {${args.join(", ")}}\n    ${tool.description}`;
}

const RUN_OPTIONS = {
  ...SANDBOX_FLAGS,
  args: { type: "string" },
  "args-file": { type: "string" },
  "allow-host": { type: "string", multiple: true },
  trace: { type: "string" },
} as const;

async function runOne(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("tools run", args, RUN_OPTIONS);
  if (values.help) return await io.stdout(help), EXIT.ok;
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length
        ? `unexpected argument: ${positionals[1]}`
        : "name the tool to run (see syn tools list)",
    );
  }
  const options = toolSessionOptions({ ...values, allowHosts: values["allow-host"] }, io);
  const callArgs = await readCallArgs(io, values.args, values["args-file"]);
  const traceFile = values.trace ? await traceTarget(io, values.trace) : undefined;
  let traceError: unknown;
  const session = await openToolSession({
    ...options,
    firstTool: positionals[0],
    trace: traceFile
      ? (event) => appendJsonl(traceFile, event).catch((error) => void (traceError ??= error))
      : undefined,
  });
  let result: ToolResult;
  try {
    result = await session.call({ id: "t1", tool: positionals[0], args: callArgs });
  } finally {
    session.close();
  }
  await io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  if (traceError !== undefined) {
    const where = neutralizeTerminalText(values.trace ?? "");
    await io.stderr(
      `syn tools: the trace was not written to ${where}: ${errorMessage(traceError)}\n`,
    );
    return EXIT.failure;
  }
  return result.ok ? EXIT.ok : EXIT.failure;
}

/** `--trace FILE`: its folder must exist (a trace that silently went nowhere helps no one). */
async function traceTarget(io: CliIo, given: string): Promise<string> {
  const file = resolvePath(io.cwd, given);
  const folder = dirnameOf(file);
  const info = await Deno.stat(folder).catch(() => undefined);
  if (!info?.isDirectory) {
    throw new UsageError(`--trace: no such folder: ${neutralizeTerminalText(folder)}`);
  }
  return file;
}

async function readCallArgs(
  io: CliIo,
  inline: string | undefined,
  file: string | undefined,
): Promise<unknown> {
  if (inline !== undefined && file !== undefined) {
    throw new UsageError("give --args or --args-file, not both");
  }
  let value: unknown = {};
  try {
    if (inline !== undefined) {
      if (inline.length > MAX_ARGS_BYTES) {
        throw new UsageError(`--args is larger than ${MAX_ARGS_BYTES} bytes`);
      }
      value = parseJson(inline, "--args");
    } else if (file !== undefined) {
      value = await readDocument(io, file, { stdinName: "<stdin>", maxBytes: MAX_ARGS_BYTES });
    }
  } catch (error) {
    if (error instanceof SynError && !(error instanceof UsageError)) {
      throw new UsageError(error.message);
    }
    throw error;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError('the arguments must be a JSON object, e.g. \'{"path": "a.txt"}\'');
  }
  return value;
}
