/** OpenAI Chat Completions (`POST {endpoint}/chat/completions`), also every compatible server. */
import { ProviderError } from "./provider_error.ts";
import {
  asRecord,
  endpointUrl,
  makeUsage,
  numberOrUndefined,
  openAiMessages,
  parseJsonEvent,
  reasonOfErrorWords,
  type Wire,
  wireSchemaName,
} from "./_wire.ts";

/**
 * OpenAI's strict structured outputs accept only schemas where every object lists all of
 * its properties as required and forbids others; anything else is sent with
 * `strict: false` so the request is not refused.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (schema === null || typeof schema !== "object") return true;
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  const rules = schema as Record<string, unknown>;
  const isObject = rules.type === "object" || rules.properties !== undefined;
  if (isObject) {
    if (rules.additionalProperties !== false) return false;
    const names = Object.keys(asRecord(rules.properties));
    const required = Array.isArray(rules.required) ? rules.required : [];
    if (!names.every((name) => required.includes(name))) return false;
  }
  return Object.entries(rules).every(([key, value]) =>
    key === "enum" || key === "const" || key === "default" || key === "examples" ||
    isStrictCompatible(value)
  );
}

export const openAiWire: Wire = {
  buildRequest(config, request, stream) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
    };
    // Labs spec: Authorization only in live mode, and only with a key.
    if (config.mode === "live" && config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    const body: Record<string, unknown> = {
      model: config.model,
      messages: openAiMessages(request),
    };
    const temperature = request.temperature ?? config.temperature;
    if (temperature !== undefined) body.temperature = temperature;
    if (request.maxTokens !== undefined) {
      // OpenAI deprecated `max_tokens` (newer models refuse it); compatible servers
      // (Ollama, vLLM, llama.cpp) know `max_tokens` best.
      const field = config.provider === "openai" ? "max_completion_tokens" : "max_tokens";
      body[field] = request.maxTokens;
    }
    if (request.seed !== undefined) body.seed = request.seed;
    if (request.jsonSchema) {
      body.response_format = {
        type: "json_schema",
        json_schema: {
          name: wireSchemaName(request),
          schema: request.jsonSchema,
          strict: isStrictCompatible(request.jsonSchema),
        },
      };
    }
    if (stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return { url: endpointUrl(config.endpoint, "/chat/completions"), headers, body };
  },

  parseAnswer(body) {
    const record = asRecord(body);
    const choices = record.choices;
    if (!Array.isArray(choices) || choices.length === 0) {
      throw new ProviderError("bad_response", "Response has no choices");
    }
    const choice = asRecord(choices[0]);
    const message = asRecord(choice.message);
    if (typeof message.refusal === "string" && message.refusal) {
      throw new ProviderError("bad_response", `Model refused: ${message.refusal.slice(0, 200)}`);
    }
    if (typeof message.content !== "string") {
      throw new ProviderError("bad_response", "Response message has no text content");
    }
    const usage = asRecord(record.usage);
    return {
      text: message.content,
      usage: makeUsage(
        numberOrUndefined(usage.prompt_tokens),
        numberOrUndefined(usage.completion_tokens),
        numberOrUndefined(usage.total_tokens),
      ),
      finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : undefined,
    };
  },

  newStreamState() {
    return { complete: false };
  },

  onEvent(state, event, _request, deliver) {
    if (event.data.trim() === "[DONE]") {
      state.complete = true;
      return true;
    }
    const chunk = parseJsonEvent(event);
    if (chunk.error !== undefined) {
      const error = asRecord(chunk.error);
      const words = `${error.type ?? ""} ${error.code ?? ""}`;
      throw new ProviderError(
        reasonOfErrorWords(words),
        `Error inside the stream: ${
          String(error.message ?? JSON.stringify(chunk.error)).slice(0, 300)
        }`,
      );
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const item of choices) {
      const choice = asRecord(item);
      if (choice.index !== undefined && choice.index !== 0) continue;
      const content = asRecord(choice.delta).content;
      if (typeof content === "string" && content !== "") deliver(content);
      if (typeof choice.finish_reason === "string") state.finishReason = choice.finish_reason;
    }
    if (chunk.usage && typeof chunk.usage === "object") {
      const usage = asRecord(chunk.usage);
      state.usage = makeUsage(
        numberOrUndefined(usage.prompt_tokens),
        numberOrUndefined(usage.completion_tokens),
        numberOrUndefined(usage.total_tokens),
      );
    }
    return false;
  },
};
