/**
 * JSON with comments (JSONC, as `syn.jsonc` and editors write it): `//` and `/* … *\/`
 * comments and trailing commas become whitespace, so positions in error messages still
 * point at the user's text. Strings are left alone, escapes included.
 */
export function stripJsonc(text: string): string {
  let out = "";
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(index, end + 1);
      index = end + 1;
    } else if (char === "/" && text[index + 1] === "/") {
      const end = text.indexOf("\n", index);
      const stop = end === -1 ? text.length : end;
      out += " ".repeat(stop - index);
      index = stop;
    } else if (char === "/" && text[index + 1] === "*") {
      const end = text.indexOf("*/", index + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(index, stop).replace(/[^\n]/g, " ");
      index = stop;
    } else if (char === ",") {
      let next = index + 1;
      while (next < text.length && /\s/.test(text[next])) next++;
      out += text[next] === "}" || text[next] === "]" ? " " : ",";
      index++;
    } else {
      out += char;
      index++;
    }
  }
  return out;
}
