/**
 * The one list of field names that hold secrets in tool arguments: the recorder masks the
 * values under them before anything is stored, and synthesis never learns them as constants
 * (a credential one client sent must never be sent again on behalf of another).
 *
 * A name is split into words (`access_token`, `accessToken`, `X-Api-Key` → `access token`,
 * `access token`, `x api key`); it is secret when its last word names a credential
 * (`token`, `key`, `secret`, …) or any word is one that is never anything else (`password`,
 * `cookie`, `authorization`, …). `token_type` and `keyword` are not secret; `client_secret`,
 * `refresh_token`, `api_key`, `set-cookie` and `password_hash` are.
 */
import { setOwn } from "./json_object.ts";
import { REDACTED } from "./redact.ts";

/** Words that make a name secret wherever they stand in it. */
const ALWAYS_SECRET_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwd",
  "passphrase",
  "pwd",
  "secret",
  "secrets",
  "credential",
  "credentials",
  "cookie",
  "cookies",
  "authorization",
  "apikey",
  "privatekey",
]);

/** Words that make a name secret when they end it (`access_token`, but not `token_type`). */
const TRAILING_SECRET_WORDS: ReadonlySet<string> = new Set([
  "token",
  "key",
  "auth",
  "pin",
  "otp",
  "signature",
  "sig",
]);

/** The secret field names, as documented: each is matched by {@linkcode isSecretName}. */
export const SECRET_NAME_EXAMPLES: readonly string[] = [
  "token",
  "password",
  "secret",
  "key",
  "credential",
  "cookie",
  "authorization",
  "access_token",
  "refresh_token",
  "client_secret",
  "api_key",
  "x-api-key",
];

/** `accessToken` → `["access", "token"]`; `X-API-Key` → `["x", "api", "key"]`. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
}

/** Whether a field named `name` holds a secret (see the module comment). */
export function isSecretName(name: string): boolean {
  const words = wordsOf(name);
  if (words.length === 0) return false;
  if (TRAILING_SECRET_WORDS.has(words[words.length - 1])) return true;
  return words.some((word) => ALWAYS_SECRET_WORDS.has(word));
}

/**
 * A deep copy with every value under a secret-named field (at any depth, whatever its type)
 * replaced by {@linkcode REDACTED}. Iterative, so deep input cannot overflow the stack.
 */
export function maskSecretFields<T>(value: T): T {
  const copyOf = (item: unknown): unknown =>
    Array.isArray(item)
      ? new Array(item.length)
      : item !== null && typeof item === "object"
      ? {}
      : item;
  const root = copyOf(value);
  const pending: [object, object][] = [];
  if (root !== null && typeof root === "object") pending.push([value as object, root]);
  while (pending.length > 0) {
    const [source, target] = pending.pop()!;
    const isArray = Array.isArray(source);
    for (const [name, entry] of Object.entries(source)) {
      const secret = !isArray && isSecretName(name) && entry !== null && entry !== "";
      const copy = secret ? REDACTED : copyOf(entry);
      setOwn(target, name, copy);
      if (!secret && copy !== null && typeof copy === "object") {
        pending.push([entry as object, copy]);
      }
    }
  }
  return root as T;
}
