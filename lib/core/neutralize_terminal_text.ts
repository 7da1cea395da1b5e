/**
 * Text from a model, a tool or any other untrusted source, made safe to print on a
 * terminal: C0 and C1 control characters (except newline and tab), DEL, and the Unicode
 * bidirectional overrides and isolates are shown as visible escapes (`\x1b`, `\u202e`), so
 * an ANSI sequence can neither recolour, move the cursor, retitle the window nor hide text.
 */
export function neutralizeTerminalText(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => {
      const code = char.charCodeAt(0);
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, "0")}`
        : `\\u${code.toString(16).padStart(4, "0")}`;
    },
  );
}
