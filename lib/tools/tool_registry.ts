import { compileJsonSchema, type JsonSchemaValidator } from "../schema/mod.ts";
import { compareCodePoints, SynError } from "../core/mod.ts";
import type { ToolDescriptor } from "./tool_descriptor.ts";

/** `fs.read_text`, `composite.kb_search_fetch`: a namespace, a dot, a name. */
const TOOL_NAME = /^[a-z][a-z0-9_]*(\.[a-z0-9_][a-z0-9_-]*)+$/;

const compiled = new WeakMap<ToolDescriptor, Promise<JsonSchemaValidator>>();

/** The argument validator of a descriptor, compiled once per process through `lib/schema`. */
export function argsValidator(descriptor: ToolDescriptor): Promise<JsonSchemaValidator> {
  let validator = compiled.get(descriptor);
  if (!validator) {
    // The baseline tools' schemas are generated ahead of time with the other tools' ones.
    validator = compileJsonSchema(descriptor.argsSchema, { lookFirstIn: "tools" });
    compiled.set(descriptor, validator);
  }
  return validator;
}

/**
 * The tools a session may call, by namespaced name. Composite tools (from
 * `syn synthesize`) are registered beside the baseline ones and run through the same
 * layer. Registering compiles the argument schema, so a broken one fails here, not
 * at the first call.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDescriptor>();

  /** Adds a tool; throws `SynError` for a malformed name, a duplicate or a bad schema. */
  async register(descriptor: ToolDescriptor): Promise<void> {
    if (!TOOL_NAME.test(descriptor.name) || descriptor.name.length > 128) {
      throw new SynError("invalid_tool", `Tool name must be namespaced: ${descriptor.name}`);
    }
    if (this.#tools.has(descriptor.name)) {
      throw new SynError("invalid_tool", `Tool already registered: ${descriptor.name}`);
    }
    await argsValidator(descriptor);
    this.#tools.set(descriptor.name, descriptor);
  }

  /** Removes a tool (a composite that was demoted); true when it was there. */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  get(name: string): ToolDescriptor | undefined {
    return this.#tools.get(name);
  }

  /** Every tool, sorted by name. */
  list(): ToolDescriptor[] {
    return [...this.#tools.values()].sort((a, b) => compareCodePoints(a.name, b.name));
  }
}
