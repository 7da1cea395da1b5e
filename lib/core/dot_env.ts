/** `.env` files above this are not read (a `.env` is a handful of lines). */
export const MAX_DOT_ENV_BYTES = 64 * 1024;

/**
 * Parses a `.env` file: `NAME=value` lines, `export NAME=value`, `#` comments and blank
 * lines; a value in single quotes is taken as written, in double quotes with `\n`, `\t`,
 * `\"` and `\\` escapes; an unquoted value ends at ` #`. No variable expansion, no command
 * substitution. Lines that are none of these are skipped (and returned in `skipped`).
 */
export function parseDotEnv(text: string): { values: Map<string, string>; skipped: number[] } {
  const values = new Map<string, string>();
  const skipped: number[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      skipped.push(index + 1);
      return;
    }
    const value = parseValue(match[2]);
    if (value === undefined) skipped.push(index + 1);
    else values.set(match[1], value);
  });
  return { values, skipped };
}

function parseValue(text: string): string | undefined {
  if (text.startsWith("'")) {
    const end = text.indexOf("'", 1);
    return end < 0 ? undefined : text.slice(1, end);
  }
  if (text.startsWith('"')) {
    let value = "";
    for (let i = 1; i < text.length; i++) {
      const char = text[i];
      if (char === '"') return value;
      if (char === "\\" && i + 1 < text.length) {
        const next = text[++i];
        value += next === "n" ? "\n" : next === "t" ? "\t" : next;
      } else value += char;
    }
    return undefined;
  }
  const comment = text.search(/\s#/);
  return (comment < 0 ? text : text.slice(0, comment)).trim();
}
