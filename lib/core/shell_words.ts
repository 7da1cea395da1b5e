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
  const words = new WordSplitter(cmd, label).split();
  if (words.length > MAX_WORDS) {
    throw new ShellWordsError("invalid_args", `${label} has more than ${MAX_WORDS} words`);
  }
  if (words.length === 0) throw new ShellWordsError("invalid_args", `${label} is empty`);
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) throw refuse("variable assignment");
  return words;
}

function refuse(what: string): ShellWordsError {
  return new ShellWordsError(
    "not_allowed",
    `Shell syntax is not allowed (${what}); give one program and its arguments`,
  );
}

/** One left-to-right pass over a command line: `index` moves on, words collect. */
class WordSplitter {
  readonly #words: string[] = [];
  #word = "";
  #inWord = false;
  #index = 0;

  constructor(readonly cmd: string, readonly label: string) {}

  split(): string[] {
    while (this.#index < this.cmd.length) {
      const char = this.cmd[this.#index];
      if (char === "\0") throw refuse("NUL byte");
      if (char === "\n" || char === "\r") throw refuse("newline");
      if (char === " " || char === "\t") this.#endWord();
      else if (char === "'") this.#singleQuoted();
      else if (char === '"') this.#doubleQuoted();
      else if (char === "\\") this.#escaped();
      else this.#plain(char);
    }
    if (this.#inWord) this.#words.push(this.#word);
    return this.#words;
  }

  #malformed(what: string): ShellWordsError {
    return new ShellWordsError("invalid_args", `${this.label} ${what}`);
  }

  #endWord(): void {
    if (this.#inWord) this.#words.push(this.#word);
    this.#word = "";
    this.#inWord = false;
    this.#index++;
  }

  /** Single quotes keep everything up to the next one as it is. */
  #singleQuoted(): void {
    const end = this.cmd.indexOf("'", this.#index + 1);
    if (end < 0) throw this.#malformed("has an unterminated single quote");
    this.#word += this.cmd.slice(this.#index + 1, end);
    this.#inWord = true;
    this.#index = end + 1;
  }

  #doubleQuoted(): void {
    const cmd = this.cmd;
    this.#index++;
    while (this.#index < cmd.length) {
      const inner = cmd[this.#index];
      if (inner === '"') {
        this.#index++;
        this.#inWord = true;
        return;
      }
      if (inner === "$" || inner === "`") {
        throw refuse(inner === "$" ? "$ expansion" : "backtick");
      }
      if (inner === "\0") throw refuse("NUL byte");
      if (inner === "\n" || inner === "\r") throw refuse("newline");
      // Inside double quotes a backslash escapes only $ ` " \ and newline (POSIX 2.2.3).
      const next = cmd[this.#index + 1];
      if (inner === "\\" && this.#index + 1 < cmd.length && '$`"\\'.includes(next)) {
        this.#word += next;
        this.#index += 2;
        continue;
      }
      this.#word += inner;
      this.#index++;
    }
    throw this.#malformed("has an unterminated double quote");
  }

  /** A backslash outside quotes takes the next character as it is. */
  #escaped(): void {
    if (this.#index + 1 >= this.cmd.length) throw this.#malformed("ends with a backslash");
    const next = this.cmd[this.#index + 1];
    if (next === "\n" || next === "\r" || next === "\0") {
      throw refuse("escaped control character");
    }
    this.#word += next;
    this.#inWord = true;
    this.#index += 2;
  }

  /** An unquoted character: refused when a shell would act on it. */
  #plain(char: string): void {
    if (";&|<>(){}".includes(char)) throw refuse(`'${char}'`);
    if (char === "`") throw refuse("backtick");
    if (char === "$") throw refuse("$ expansion");
    if ("*?[".includes(char)) throw refuse(`glob '${char}'`);
    if (char === "~" && !this.#inWord) throw refuse("'~' expansion");
    if (char === "#" && !this.#inWord) throw refuse("'#' comment");
    if (char === "=" && !this.#inWord && this.#words.length === 0) {
      throw refuse("variable assignment");
    }
    this.#word += char;
    this.#inWord = true;
    this.#index++;
    if (this.#words.length >= MAX_WORDS) throw this.#malformed(`has more than ${MAX_WORDS} words`);
  }
}
