import { join } from "node:path";
import { detectBubblewrap } from "../../lib/tools/mod.ts";

/** Text that must never appear in any tool output: it lives only outside the root. */
export const SENTINEL = "SENTINEL-outside-the-root-7f3a";

/**
 * A temporary tree for sandbox attacks: `<base>/root` is the sandbox; beside it,
 * `<base>/secret.txt` and `<base>/root-evil/secret.txt` hold the sentinel; inside the root
 * are symlinks that point out (a file, a folder, a dangling one) and one that stays in.
 * `outsideSnapshot()` lists everything outside the root with its content, so a test can
 * prove nothing there was written, created or removed.
 */
export async function sandboxFixture() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn-sandbox-" }));
  const root = join(base, "root");
  await Deno.mkdir(join(root, "docs"), { recursive: true });
  await Deno.mkdir(join(base, "root-evil"));
  await Deno.writeTextFile(join(base, "secret.txt"), `${SENTINEL} file\n`);
  await Deno.writeTextFile(join(base, "root-evil", "secret.txt"), `${SENTINEL} sibling\n`);
  await Deno.writeTextFile(join(root, "docs", "notes.md"), "line one\nTODO line two\nline three\n");
  await Deno.writeTextFile(join(root, "hello.txt"), "hello\n");
  await Deno.symlink(join(base, "secret.txt"), join(root, "link-out.txt"));
  await Deno.symlink(base, join(root, "dir-out"));
  await Deno.symlink(join(base, "created-by-attack.txt"), join(root, "dangling-out.txt"));
  await Deno.symlink(join(root, "hello.txt"), join(root, "link-in.txt"));
  return {
    base,
    root,
    async outsideSnapshot(): Promise<string> {
      const lines: string[] = [];
      await walk(base, root, lines);
      return lines.sort().join("\n");
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

async function walk(folder: string, skip: string, lines: string[]): Promise<void> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (path === skip) continue;
    if (entry.isSymlink) lines.push(`${path} -> ${await Deno.readLink(path)}`);
    else if (entry.isDirectory) {
      lines.push(`${path}/`);
      await walk(path, skip, lines);
    } else lines.push(`${path}: ${await Deno.readTextFile(path)}`);
  }
}

/**
 * A shell attack suite runs once on argv checks alone (which needs the explicit opt-in,
 * `shellWithoutBubblewrap`) and once inside bubblewrap (when it runs).
 */
export interface ShellVariant {
  name: string;
  bubblewrap: "auto" | "off";
  shellWithoutBubblewrap: boolean;
  ignore: boolean;
}

/** The two variants; the bubblewrap one is ignored, with a printed reason, where it cannot run. */
export async function shellVariants(): Promise<ShellVariant[]> {
  const bubblewrap = await detectBubblewrap();
  if (!bubblewrap) {
    console.warn(
      "skipping the bubblewrap variants: bubblewrap is not installed or cannot run here",
    );
  }
  return [
    { name: "argv checks", bubblewrap: "off", shellWithoutBubblewrap: true, ignore: false },
    { name: "bubblewrap", bubblewrap: "auto", shellWithoutBubblewrap: false, ignore: !bubblewrap },
  ];
}
