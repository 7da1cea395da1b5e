/**
 * Every schema resource of a set by absolute URI: top-level `$id`s (or the file URL
 * when `$id` is missing — MCP spec §8), nested `$id`s and `$anchor`s. `$ref`s are
 * resolved against it, so a reference finds its target whatever host the set uses.
 */
import { isRecord, unescapePointerToken } from "../core/mod.ts";

type SchemaObject = Record<string, unknown>;

/** A resolved reference: the target schema and the base URI its own references use. */
export interface ResolvedSchema {
  schema: unknown;
  base: string;
  /** True when the target is a whole resource (no fragment), named by `base`. */
  root?: boolean;
}

// Keywords whose values are data, not subschemas: never scanned for `$id`/`$anchor`.
const DATA_KEYWORDS = new Set(["const", "default", "enum", "example", "examples"]);

/** `new URL(reference, base)` without a fragment; `undefined` when it does not resolve. */
export function resolveUri(reference: string, base: string): string | undefined {
  try {
    const url = new URL(reference, base);
    url.hash = "";
    return url.href;
  } catch {
    return undefined;
  }
}

function decodeFragment(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

export class SchemaIndex {
  readonly #resources = new Map<string, unknown>();
  /** Schemas added whose nested `$id`s and `$anchor`s are not indexed yet, in order. */
  readonly #unscanned: [schema: unknown, base: string][] = [];

  /**
   * Adds a top-level schema read from `retrievalUri`; returns its base URI. A schema
   * nested too deeply to walk throws `RangeError` here, unless `deferScan`: then its nested
   * resources are indexed at the first `resolve`, in the order the schemas were added (the
   * same index), so that a validation that never resolves a reference — a valid document
   * against the generated validators of schemas we ship — never walks the set.
   */
  add(schema: unknown, retrievalUri: string, options: { deferScan?: boolean } = {}): string {
    const own = isRecord(schema) && typeof schema.$id === "string"
      ? resolveUri(schema.$id, retrievalUri)
      : undefined;
    const base = own ?? retrievalUri;
    this.#resources.set(base, schema);
    this.#unscanned.push([schema, base]);
    if (!options.deferScan) this.#scanAdded();
    return base;
  }

  #scanAdded(): void {
    for (const [schema, base] of this.#unscanned.splice(0)) this.#scan(schema, base);
  }

  #scan(schema: unknown, base: string): void {
    if (Array.isArray(schema)) {
      for (const item of schema) this.#scan(item, base);
      return;
    }
    if (!isRecord(schema)) return;
    let current = base;
    if (typeof schema.$id === "string") {
      current = resolveUri(schema.$id, base) ?? base;
      if (!this.#resources.has(current)) this.#resources.set(current, schema);
    }
    if (typeof schema.$anchor === "string") {
      this.#resources.set(`${current}#${schema.$anchor}`, schema);
    }
    for (const [key, value] of Object.entries(schema)) {
      if (!DATA_KEYWORDS.has(key)) this.#scan(value, current);
    }
  }

  readonly #resolved = new Map<string, ResolvedSchema | undefined>();
  readonly #bases = new Map<string, string>();

  /** The base URI inside a schema with `$id` (memoized, like `resolve`). */
  baseOf(id: string, base: string): string {
    const key = `${base}\u0000${id}`;
    let resolved = this.#bases.get(key);
    if (resolved === undefined) {
      resolved = resolveUri(id, base) ?? base;
      this.#bases.set(key, resolved);
    }
    return resolved;
  }

  /**
   * Resolves `$ref` against `base`: a resource, an anchor, or a JSON Pointer fragment.
   * Memoized: URL parsing would otherwise dominate the cost of explaining errors.
   */
  resolve(reference: string, base: string): ResolvedSchema | undefined {
    const key = `${base}\u0000${reference}`;
    if (this.#resolved.has(key)) return this.#resolved.get(key);
    const resolved = this.#resolve(reference, base);
    this.#resolved.set(key, resolved);
    return resolved;
  }

  #resolve(reference: string, base: string): ResolvedSchema | undefined {
    this.#scanAdded();
    let url: URL;
    try {
      url = new URL(reference, base);
    } catch {
      return undefined;
    }
    const fragment = url.hash.slice(1);
    url.hash = "";
    const document = url.href;
    if (fragment && !fragment.startsWith("/")) {
      const anchored = this.#resources.get(`${document}#${fragment}`);
      return anchored === undefined ? undefined : { schema: anchored, base: document };
    }
    let target = this.#resources.get(document);
    if (target === undefined) return undefined;
    const pointer = decodeFragment(fragment);
    if (pointer === undefined) return undefined;
    if (pointer === "") return { schema: target, base: document, root: true };
    for (const raw of pointer.slice(1).split("/")) {
      const token = unescapePointerToken(raw);
      if (Array.isArray(target)) target = target[Number(token)];
      else if (isRecord(target) && Object.hasOwn(target, token)) target = target[token];
      else return undefined;
      if (target === undefined) return undefined;
    }
    return { schema: target, base: document };
  }
}
