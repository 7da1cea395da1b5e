import { responseHash, utf8ByteLength } from "../core/mod.ts";
import { checkJsonAnswer, withAnswerValidator } from "./_answer.ts";
import { exampleFromSchema } from "./example_from_schema.ts";
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  MockScript,
  ProviderName,
  StreamEvent,
  StreamRequest,
} from "./types.ts";

/** Options of `mockLanguageModel`: how the model presents itself, and stream chunking. */
export interface MockLanguageModelOptions {
  /** Provider reported in results (a named provider in mock mode keeps its name). */
  provider?: ProviderName;
  model?: string;
  endpoint?: string;
  apiVersion?: string;
  /** Characters per streamed text delta (default 16). */
  chunkSize?: number;
}

/** A scripted model that records every request it gets. */
export interface MockLanguageModel extends LanguageModel {
  /** Every request, in order (both `generate` and `stream`). */
  readonly calls: GenerateRequest[];
}

function lastUserText(request: GenerateRequest): string {
  if (request.prompt) return request.prompt;
  const users = (request.messages ?? []).filter((message) => message.role === "user");
  return users.at(-1)?.content ?? "";
}

/**
 * The answer when no script is given: a value built from the requested schema
 * (`exampleFromSchema`), else a text that quotes the prompt.
 */
export function defaultMockAnswer(request: GenerateRequest): unknown {
  if (request.jsonSchema) return exampleFromSchema(request.jsonSchema);
  return `Mock answer to: ${lastUserText(request)}`;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * A deterministic model without network: `script` is a function of the request and the
 * 0-based call number (it may be async), one fixed answer, or a list of answers (call n
 * gets item n; a list that runs out throws). A string answer is the text; any other value
 * is a JSON answer; an `Error` answer is thrown. JSON answers pass the same schema check
 * as live ones, so a scripted schema-invalid answer gives a `bad_response`.
 *
 * ```ts
 * const model = mockLanguageModel([{ title: "first" }, new Error("boom")]);
 * ```
 */
export function mockLanguageModel(
  script: MockScript = defaultMockAnswer,
  options: MockLanguageModelOptions = {},
): MockLanguageModel {
  const calls: GenerateRequest[] = [];
  const provider = options.provider ?? "mock";
  const model = options.model ?? "mock-model";
  const endpoint = options.endpoint ?? "mock://local";
  const apiVersion = options.apiVersion ?? "mock";
  const chunkSize = Math.max(1, options.chunkSize ?? 16);

  async function answer(request: GenerateRequest): Promise<{ text: string; json?: unknown }> {
    if (request.signal?.aborted) throw request.signal.reason;
    const call = calls.length;
    calls.push(request);
    let value: unknown;
    if (typeof script === "function") {
      value = await (script as (request: GenerateRequest, call: number) => unknown)(request, call);
    } else if (Array.isArray(script)) {
      if (call >= script.length) {
        throw new RangeError(`Mock script has no answer for call: ${call}`);
      }
      value = await script[call];
    } else {
      value = script;
    }
    if (value instanceof Error) throw value;
    const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
    const json = checkJsonAnswer(await withAnswerValidator(request), text);
    return { text, json };
  }

  function result(request: GenerateRequest, text: string, json: unknown): GenerateResult {
    const result: GenerateResult = {
      text,
      raw: text,
      rawSize: utf8ByteLength(text),
      responseHash: responseHash(text),
      usage: {
        inputTokens: wordCount(lastUserText(request)),
        outputTokens: wordCount(text),
        totalTokens: wordCount(lastUserText(request)) + wordCount(text),
      },
      model,
      provider,
      mode: "mock",
      endpoint,
      apiVersion,
      attempts: 1,
      finishReason: "stop",
    };
    if (request.jsonSchema) result.json = json;
    return result;
  }

  return {
    provider,
    model,
    endpoint,
    mode: "mock",
    calls,
    async generate(request) {
      const { text, json } = await answer(request);
      return result(request, text, json);
    },
    async *stream(request: StreamRequest): AsyncGenerator<StreamEvent> {
      const { text, json } = await answer(request);
      const characters = [...text];
      for (let index = 0; index < characters.length; index += chunkSize) {
        if (request.signal?.aborted) throw request.signal.reason;
        const piece = characters.slice(index, index + chunkSize).join("");
        request.onTextDelta(piece);
      }
      yield { type: "finish", result: result(request, text, json) };
    },
  };
}
