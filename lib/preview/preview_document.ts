import type { SchemaStore, ValidationIssue } from "../schema/mod.ts";
import { isRecord } from "../core/mod.ts";

/** One document as the preview page receives it at `/asset.json`. */
export interface PreviewDocument {
  /** Shown in the title: the file name, or `<stdin>`. */
  name: string;
  /** The schema it was checked against (from `--schema`, its marker, else synesthetic-asset). */
  schema: string;
  ok: boolean;
  errors: ValidationIssue[];
  /** The document as given. */
  document: unknown;
  /** The document as an asset the page can render: a lone shader is `{shader}`, and so on. */
  view: Record<string, unknown>;
}

/** How a document of each schema sits inside an asset. */
const VIEWS: Record<string, (document: Record<string, unknown>) => Record<string, unknown>> = {
  "synesthetic-asset": (document) => document,
  shader: (document) => ({ shader: document }),
  tone: (document) => ({ tone: document }),
  haptic: (document) => ({ haptic: document }),
  "control-bundle": (document) => ({ control: document }),
  control: (document) => ({ control: { control_parameters: [document] } }),
  "rule-bundle": (document) => ({ rule_bundle: document }),
  rule: (document) => ({ rule_bundle: { rules: [document] } }),
  modulation: (document) => ({ modulations: document.modulations }),
};

/**
 * Checks a document with the schema validator before anything renders it: the page shows
 * an invalid document's errors and renders nothing of it.
 */
export function previewDocument(
  store: SchemaStore,
  name: string,
  document: unknown,
  schemaFlag?: string,
): PreviewDocument {
  const schema = schemaFlag ?? store.schemaFromMarker(document) ?? "synesthetic-asset";
  const result = store.validate(document, schema);
  const object = isRecord(document) ? document : {};
  const view = result.ok ? (VIEWS[schema] ?? ((d) => d))(object) : {};
  return { name, schema, ok: result.ok, errors: result.errors, document, view };
}
