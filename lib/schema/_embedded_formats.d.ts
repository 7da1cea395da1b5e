// Types of the generated `_embedded_formats.js`.
import type { FormatDefinition } from "./_explain.ts";

/** ajv-formats' `fullFormats`: every format it defines, by name. */
export declare const fullFormats: Readonly<Record<string, FormatDefinition>>;
