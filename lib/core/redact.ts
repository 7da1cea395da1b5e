/** The one mask every secret becomes, in errors, logs and debug output (Labs spec). */
export const REDACTED = "***redacted***";

/** Environment variables whose values are secrets. */
export const SECRET_ENV_NAMES: readonly string[] = [
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "ANTHROPIC_API_KEY",
];

/** Secret values found in an environment (short values are ignored: they would mask noise). */
export function secretsFromEnv(env: (name: string) => string | undefined): string[] {
  const secrets: string[] = [];
  for (const name of SECRET_ENV_NAMES) {
    const value = env(name);
    if (value && value.length >= 4) secrets.push(value);
  }
  return secrets;
}

/** Query parameters that carry credentials (Gemini `key`, Azure `api-key`, `code`, `sig`, OAuth). */
const QUERY_SECRET_NAMES =
  "key|api[_-]?key|access[_-]?token|token|sig|signature|code|client[_-]?secret|password|secret";

const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  new RegExp(`([?&](?:${QUERY_SECRET_NAMES})=)[^&\\s"']+`, "gi"),
];

/**
 * A known secret cut short (a detail truncated inside it) is still recognized by its first
 * this many characters; fewer give too little away to be told from ordinary text.
 */
const SECRET_PREFIX_CHARS = 12;

/** Masks every run of text that starts with the first characters of `secret` and follows it. */
function maskCutSecret(text: string, secret: string): string {
  const head = secret.slice(0, SECRET_PREFIX_CHARS);
  let result = "";
  let from = 0;
  let at = text.indexOf(head);
  while (at !== -1) {
    let end = at + head.length;
    while (end < text.length && end - at < secret.length && text[end] === secret[end - at]) end++;
    result += text.slice(from, at) + REDACTED;
    from = end;
    at = text.indexOf(head, end);
  }
  return result + text.slice(from);
}

/**
 * Masks every known secret (also one cut short, from its first 12 characters on) and
 * anything shaped like an API key. The same function is used for error details, log
 * records and debug output.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (!secret) continue;
    result = result.split(secret).join(REDACTED);
    if (secret.length > SECRET_PREFIX_CHARS) result = maskCutSecret(result, secret);
  }
  for (const pattern of KEY_PATTERNS) {
    result = result.replace(
      pattern,
      (match: string, prefix?: unknown) =>
        typeof prefix === "string" && match.startsWith(prefix) ? prefix + REDACTED : REDACTED,
    );
  }
  return result;
}

const SECRET_FIELD =
  /^(authorization|x-api-key|x-goog-api-key|api[_-]?key|.*_api_key|password|secret|token)$/i;

/**
 * Deep copy with secrets masked in every string and under secret-looking field names.
 * Iterative (an explicit stack), so a deeply nested value cannot overflow the call stack.
 */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  const redactString = (text: string, key: string | undefined): string =>
    key !== undefined && SECRET_FIELD.test(key) && text !== ""
      ? REDACTED
      : redactText(text, secrets);
  const copyOf = (item: unknown, key: string | undefined): unknown => {
    if (typeof item === "string") return redactString(item, key);
    if (Array.isArray(item)) return new Array(item.length);
    if (item !== null && typeof item === "object") return {};
    return item;
  };
  const root = copyOf(value, undefined);
  // Pairs of [original container, its empty copy] still to fill.
  const pending: [object, object][] = [];
  if (root !== null && typeof root === "object") pending.push([value as object, root]);
  while (pending.length > 0) {
    const [source, target] = pending.pop()!;
    const entries: [string | number, unknown, string | undefined][] = Array.isArray(source)
      ? Array.from(source, (entry, index) => [index, entry, undefined])
      : Object.entries(source).map(([name, entry]) => [name, entry, name]);
    for (const [slot, entry, key] of entries) {
      const copy = copyOf(entry, key);
      if (slot === "__proto__") {
        // A plain assignment would set the prototype where `Object.prototype.__proto__` exists.
        Object.defineProperty(target, slot, {
          value: copy,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        (target as Record<string | number, unknown>)[slot] = copy;
      }
      if (copy !== null && typeof copy === "object") pending.push([entry as object, copy]);
    }
  }
  return root as T;
}
