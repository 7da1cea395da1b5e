import { setOwn } from "./json_object.ts";
/** The one mask every secret becomes, in errors, logs and debug output (Labs spec). */
export const REDACTED = "***redacted***";

/** Shorter secrets are ignored: masking them would mask ordinary words. */
export const MIN_SECRET_CHARS = 4;

function base64Of(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The credentials a URL carries in its userinfo (`http://user:pass@host/`), in every form
 * they travel in: the user, the password (as written and percent-decoded), `user:pass`,
 * and its base64 — the HTTP Basic credentials `fetch` sends, which a server may echo back.
 * None for a URL without userinfo or one that does not parse.
 */
export function secretsFromUrl(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  if (!parsed.username && !parsed.password) return [];
  const forms = new Set<string>();
  for (
    const [user, password] of [
      [parsed.username, parsed.password],
      [decodeComponent(parsed.username), decodeComponent(parsed.password)],
    ]
  ) {
    const pair = `${user}:${password}`;
    for (const value of [user, password, pair, base64Of(pair), base64Of(pair).replace(/=+$/, "")]) {
      if (value.length >= MIN_SECRET_CHARS) forms.add(value);
    }
  }
  // Longest first: a whole `user:pass` is masked before its parts are.
  return [...forms].sort((left, right) => right.length - left.length);
}

/** Query parameters that carry credentials (Gemini `key`, Azure `api-key`, `code`, `sig`, OAuth). */
const QUERY_SECRET_NAMES =
  "key|api[_-]?key|access[_-]?token|token|sig|signature|code|client[_-]?secret|password|secret";

/** Shapes of API keys and credentials, masked wherever they appear. */
export const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  new RegExp(`([?&](?:${QUERY_SECRET_NAMES})=)[^&\\s"']+`, "gi"),
  // An Authorization header echoed back by a backend, in any quoting: scheme and credentials.
  /((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:[A-Za-z][\w-]*\s+)?[^\s"',;}]+/gi,
];

/**
 * A fragment of a known secret this long or longer is masked wherever it appears — its
 * start, its end, its middle — so a provider echoing part of a key (a suffix in an error,
 * "…abcd1234") leaks nothing. Shorter runs give too little away to tell from ordinary text.
 */
export const SECRET_FRAGMENT_CHARS = 8;

/** Every run of 8 characters inside `secret`: the pieces `maskFragments` looks for. */
function fragmentsOf(secret: string): Set<string> {
  const grams = new Set<string>();
  for (let i = 0; i + SECRET_FRAGMENT_CHARS <= secret.length; i++) {
    grams.add(secret.slice(i, i + SECRET_FRAGMENT_CHARS));
  }
  return grams;
}

/** Masks every run of `text` of at least 8 characters made of pieces of one secret. */
function maskFragments(text: string, grams: ReadonlySet<string>): string {
  if (grams.size === 0 || text.length < SECRET_FRAGMENT_CHARS) return text;
  let result = "";
  let from = 0;
  let i = 0;
  while (i + SECRET_FRAGMENT_CHARS <= text.length) {
    if (!grams.has(text.slice(i, i + SECRET_FRAGMENT_CHARS))) {
      i++;
      continue;
    }
    // Extend the run while every window stays a piece of the secret.
    let end = i + SECRET_FRAGMENT_CHARS;
    while (end < text.length && grams.has(text.slice(end - SECRET_FRAGMENT_CHARS + 1, end + 1))) {
      end++;
    }
    result += text.slice(from, i) + REDACTED;
    from = end;
    i = end;
  }
  return result + text.slice(from);
}

/**
 * Text any of `KEY_PATTERNS` can match contains one of these (case aside): tested first,
 * one cheap pass, so the usual string — an asset's field, a log line — skips the five
 * replacements. Keep it in step with `KEY_PATTERNS` (`redact_test.ts` checks it is a superset).
 */
export const MAY_HOLD_KEY = /sk-|aiza|bearer|[?&]|authorization/i;

/** Masks what `KEY_PATTERNS` find. */
function maskKeyShapes(text: string): string {
  if (!MAY_HOLD_KEY.test(text)) return text;
  let result = text;
  for (const pattern of KEY_PATTERNS) {
    result = result.replace(
      pattern,
      (match: string, prefix?: unknown) =>
        typeof prefix === "string" && match.startsWith(prefix) ? prefix + REDACTED : REDACTED,
    );
  }
  return result;
}

/**
 * `redactText` with `secrets` fixed: each secret's fragments are worked out once, for
 * however many strings are then masked (a whole record's, in `redactValue`).
 */
function textRedactor(secrets: readonly string[]): (text: string) => string {
  const known = secrets.filter((secret) => secret !== "").map((secret) => ({
    secret,
    grams: secret.length >= SECRET_FRAGMENT_CHARS ? fragmentsOf(secret) : new Set<string>(),
  }));
  return (text) => {
    let result = text;
    for (const { secret, grams } of known) {
      result = result.split(secret).join(REDACTED);
      result = maskFragments(result, grams);
    }
    return maskKeyShapes(result);
  };
}

/**
 * Masks every known secret (whole, or any fragment of 8 characters or more), the value of
 * any `Authorization` header echoed back, and anything shaped like an API key. The same
 * function is used for error details, log records, debug output and property names.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return textRedactor(secrets)(text);
}

/**
 * Fields that carry credentials by protocol: HTTP auth headers and API key parameters. An
 * asset field merely *named* `token` or `secret` is content, not a credential: it is
 * masked only where it holds a known secret or a key-shaped value, like any other text.
 */
const SECRET_FIELD =
  /^(authorization|proxy-authorization|x-api-key|x-goog-api-key|api[_-]?key|.*_api_key)$/i;

/**
 * Deep copy with secrets masked in every string and under secret-looking field names.
 * Iterative (an explicit stack), so a deeply nested value cannot overflow the call stack.
 */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  const redact = textRedactor(secrets);
  const redactString = (text: string, key: string | undefined): string =>
    key !== undefined && SECRET_FIELD.test(key) && text !== "" ? REDACTED : redact(text);
  // A key can be echoed in a property *name* too: names are masked like any text.
  const nameOf = redact;
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
      : Object.entries(source).map(([name, entry]) => [nameOf(name), entry, name]);
    for (const [slot, entry, key] of entries) {
      const copy = copyOf(entry, key);
      setOwn(target, String(slot), copy);
      if (copy !== null && typeof copy === "object") pending.push([entry as object, copy]);
    }
  }
  return root as T;
}
