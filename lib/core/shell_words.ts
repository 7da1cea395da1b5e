/** Longest command line accepted, and most words. */
export const MAX_CMD_CHARS = 8192;
export const MAX_WORDS = 256;

/** Why a command line was refused: shell syntax (`not_allowed`) or a malformed line. */
export class ShellWordsError extends Error {
  readonly kind: "not_allowed" | "invalid_args";
  constructor(kind: "not_allowed" | "invalid_args", message: string) {
    super(message);
    this.name = "ShellWordsError";
    this.kind = kind;
  }
}

/**
 * Splits a command line into argv the way a POSIX shell splits words — single quotes,
 * double quotes, backslash escapes — but refuses everything a shell would *do*: `;`,
 * `&`, `|`, `<`, `>`, `(`, `)`, `{`, `}`, backticks, `$` in any form, unquoted glob
 * characters `* ? [`, a leading `~`, newlines and NUL bytes. Nothing is expanded, so the
 * argv is exactly what the words say. The one splitter of syn: a sandboxed `shell.exec`
 * and `MCP_ADAPTER_CMD` alike. Throws {@linkcode ShellWordsError} (`not_allowed` naming what
 * was found, `invalid_args` for unbalanced quotes or oversize input); `label` names the
 * line in messages.
 */
export function splitShellWords(cmd: string, label = "cmd"): string[] {
  if (cmd.length > MAX_CMD_CHARS) {
    throw new ShellWordsError(
      "invalid_args",
      `${label} is longer than ${MAX_CMD_CHARS} characters`,
    );
  }
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  const refuse = (what: string) =>
    new ShellWordsError(
      "not_allowed",
      `Shell syntax is not allowed (${what}); give one program and its arguments`,
    );
  while (i < cmd.length) {
    const char = cmd[i];
    if (char === "\0") throw refuse("NUL byte");
    if (char === "\n" || char === "\r") throw refuse("newline");
    if (char === " " || char === "\t") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
      continue;
    }
    if (char === "'") {
      const end = cmd.indexOf("'", i + 1);
      if (end < 0) {
        throw new ShellWordsError("invalid_args", `${label} has an unterminated single quote`);
      }
      word += cmd.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (char === '"') {
      i++;
      let closed = false;
      while (i < cmd.length) {
        const inner = cmd[i];
        if (inner === '"') {
          closed = true;
          i++;
          break;
        }
        if (inner === "$" || inner === "`") {
          throw refuse(inner === "$" ? "$ expansion" : "backtick");
        }
        if (inner === "\0") throw refuse("NUL byte");
        if (inner === "\n" || inner === "\r") throw refuse("newline");
        // Inside double quotes a backslash escapes only $ ` " \ and newline (POSIX 2.2.3).
        if (inner === "\\" && i + 1 < cmd.length && '$`"\\'.includes(cmd[i + 1])) {
          word += cmd[i + 1];
          i += 2;
          continue;
        }
        word += inner;
        i++;
      }
      if (!closed) {
        throw new ShellWordsError("invalid_args", `${label} has an unterminated double quote`);
      }
      inWord = true;
      continue;
    }
    if (char === "\\") {
      if (i + 1 >= cmd.length) {
        throw new ShellWordsError("invalid_args", `${label} ends with a backslash`);
      }
      const next = cmd[i + 1];
      if (next === "\n" || next === "\r" || next === "\0") {
        throw refuse("escaped control character");
      }
      word += next;
      inWord = true;
      i += 2;
      continue;
    }
    if (";&|<>(){}".includes(char)) throw refuse(`'${char}'`);
    if (char === "`") throw refuse("backtick");
    if (char === "$") throw refuse("$ expansion");
    if ("*?[".includes(char)) throw refuse(`glob '${char}'`);
    if (char === "~" && !inWord) throw refuse("'~' expansion");
    if (char === "#" && !inWord) throw refuse("'#' comment");
    if (char === "=" && !inWord && words.length === 0) throw refuse("variable assignment");
    word += char;
    inWord = true;
    i++;
    if (words.length >= MAX_WORDS) {
      throw new ShellWordsError("invalid_args", `${label} has more than ${MAX_WORDS} words`);
    }
  }
  if (inWord) words.push(word);
  if (words.length > MAX_WORDS) {
    throw new ShellWordsError("invalid_args", `${label} has more than ${MAX_WORDS} words`);
  }
  if (words.length === 0) throw new ShellWordsError("invalid_args", `${label} is empty`);
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) throw refuse("variable assignment");
  return words;
}
