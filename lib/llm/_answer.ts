/** The check every JSON answer passes, whatever produced it (HTTP, stream or mock). */
import { errorMessage } from "../core/mod.ts";
import { compileJsonSchema, type JsonSchemaValidator } from "../schema/mod.ts";
import { ProviderError } from "./provider_error.ts";
import type { GenerateRequest } from "./types.ts";

/** Compiled answer schemas, by schema object: a request's schema is usually a constant. */
const compiled = new WeakMap<object, Promise<JsonSchemaValidator>>();

/**
 * The request with a checker for its `jsonSchema` answers: its own `validateJson` if it
 * brings one, else the schema compiled by `lib/schema` — the same ajv validator and error
 * format as every other "is this valid" in syn.
 */
export async function withAnswerValidator<Request extends GenerateRequest>(
  request: Request,
): Promise<Request & GenerateRequest> {
  if (!request.jsonSchema || request.validateJson) return request;
  let validator = compiled.get(request.jsonSchema);
  if (!validator) {
    validator = compileJsonSchema(request.jsonSchema);
    compiled.set(request.jsonSchema, validator);
  }
  const check = await validator;
  return {
    ...request,
    validateJson: (value) =>
      check(value).errors.map((issue) => `${issue.path || "/"}: ${issue.msg}`),
  };
}

/** A JSON text, tolerating one surrounding Markdown code fence some servers add. */
export function parseAnswerJson(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  const body = fenced ? fenced[1] : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new ProviderError("bad_response", `Answer is not valid JSON: ${errorMessage(error)}`);
  }
}

/**
 * The parsed, schema-checked JSON answer of a request that asked for one (`undefined`
 * otherwise). An answer that is not JSON or fails the schema is a `bad_response`.
 */
export function checkJsonAnswer(
  request: GenerateRequest,
  text: string,
  json?: { value: unknown },
): unknown {
  if (!request.jsonSchema) return undefined;
  const value = json ? json.value : parseAnswerJson(text);
  if (!request.validateJson) {
    throw new TypeError("checkJsonAnswer() needs a request prepared by withAnswerValidator()");
  }
  const issues = request.validateJson(value);
  if (issues.length > 0) {
    const shown = issues.slice(0, 5).join("; ");
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : "";
    throw new ProviderError(
      "bad_response",
      `Answer does not match the requested schema: ${shown}${more}`,
    );
  }
  return value;
}
