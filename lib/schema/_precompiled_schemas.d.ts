// Types of the generated `_precompiled_service_schemas.js`, `_precompiled_tool_schemas.js`
// and `_precompiled_schemas.js`.
import type { VerdictFunction } from "./_ajv.ts";

/** A standalone ajv validator per schema, keyed by the schema's canonical JSON. */
export declare const PRECOMPILED: ReadonlyMap<string, VerdictFunction>;
