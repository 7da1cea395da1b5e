/** Anthropic Messages (`POST /v1/messages`): JSON answers through one forced tool. */
import { ProviderError } from "./provider_error.ts";
import { ANTHROPIC_VERSION } from "./resolve_model_config.ts";
import {
  asRecord,
  conversationOf,
  endpointPath,
  endpointUrl,
  makeUsage,
  numberOrUndefined,
  parseJsonEvent,
  reasonOfErrorWords,
  type StreamState,
  type Wire,
  wireSchemaName,
} from "./_wire.ts";
import type { GenerateRequest } from "./types.ts";

/** Anthropic requires `max_tokens`; this is used when the request sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * `{endpoint}/v1/messages`, or `{endpoint}/messages` when the endpoint already ends in
 * `/v1` — so both `https://api.anthropic.com` and `https://api.anthropic.com/v1` work.
 */
export function anthropicMessagesUrl(endpoint: string): string {
  return endpointUrl(endpoint, /\/v1$/.test(endpointPath(endpoint)) ? "/messages" : "/v1/messages");
}

/** A tool's input must be an object: other schemas are wrapped as `{ value: … }`. */
function isObjectSchema(schema: Record<string, unknown>): boolean {
  return schema.type === "object";
}

function toolSchema(request: GenerateRequest): Record<string, unknown> {
  const schema = request.jsonSchema!;
  return isObjectSchema(schema)
    ? schema
    : { type: "object", properties: { value: schema }, required: ["value"] };
}

function unwrapToolInput(request: GenerateRequest, input: unknown): unknown {
  return isObjectSchema(request.jsonSchema!) ? input : asRecord(input).value;
}

interface AnthropicStreamState extends StreamState {
  inputTokens?: number;
  outputTokens?: number;
}

export const anthropicWire: Wire = {
  buildRequest(config, request, stream) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": ANTHROPIC_VERSION,
    };
    if (config.mode === "live" && config.apiKey) headers["x-api-key"] = config.apiKey;
    if (stream) headers.accept = "text/event-stream";
    const { system, turns } = conversationOf(request);
    const body: Record<string, unknown> = {
      model: config.model,
      max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: turns,
    };
    if (system) body.system = system;
    const temperature = request.temperature ?? config.temperature;
    // Anthropic's temperature range is 0–1.
    if (temperature !== undefined) body.temperature = Math.min(1, temperature);
    if (request.jsonSchema) {
      const name = wireSchemaName(request);
      body.tools = [{
        name,
        description: "Answer with the requested JSON object",
        input_schema: toolSchema(request),
      }];
      body.tool_choice = { type: "tool", name };
    }
    if (stream) body.stream = true;
    return { url: anthropicMessagesUrl(config.endpoint), headers, body };
  },

  parseAnswer(body, request) {
    const record = asRecord(body);
    if (record.type === "error") {
      const error = asRecord(record.error);
      throw new ProviderError(
        reasonOfErrorWords(String(error.type ?? "")),
        `Error response: ${String(error.message ?? "unknown error").slice(0, 300)}`,
      );
    }
    const content = record.content;
    if (!Array.isArray(content)) throw new ProviderError("bad_response", "Response has no content");
    let text = "";
    let json: unknown;
    let hasJson = false;
    for (const item of content) {
      const block = asRecord(item);
      if (block.type === "text" && typeof block.text === "string") text += block.text;
      if (block.type === "tool_use" && request.jsonSchema && !hasJson) {
        json = unwrapToolInput(request, block.input);
        hasJson = true;
      }
    }
    const usage = asRecord(record.usage);
    return {
      text: hasJson ? JSON.stringify(json) : text,
      json: hasJson ? json : undefined,
      usage: makeUsage(
        numberOrUndefined(usage.input_tokens),
        numberOrUndefined(usage.output_tokens),
      ),
      finishReason: typeof record.stop_reason === "string" ? record.stop_reason : undefined,
    };
  },

  newStreamState(): AnthropicStreamState {
    return { complete: false };
  },

  onEvent(rawState, event, request, deliver) {
    const state = rawState as AnthropicStreamState;
    if (event.event === "ping") return false;
    const data = parseJsonEvent(event);
    const type = event.event === "message" ? String(data.type ?? "") : event.event;
    switch (type) {
      case "error": {
        const error = asRecord(data.error);
        throw new ProviderError(
          reasonOfErrorWords(String(error.type ?? "")),
          `Error inside the stream: ${
            String(error.message ?? error.type ?? "unknown").slice(0, 300)
          }`,
        );
      }
      case "message_start": {
        const usage = asRecord(asRecord(data.message).usage);
        state.inputTokens = numberOrUndefined(usage.input_tokens);
        state.outputTokens = numberOrUndefined(usage.output_tokens);
        state.usage = makeUsage(state.inputTokens, state.outputTokens);
        return false;
      }
      case "content_block_delta": {
        const delta = asRecord(data.delta);
        if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text) {
          deliver(delta.text);
        } else if (
          delta.type === "input_json_delta" && request.jsonSchema &&
          typeof delta.partial_json === "string" && delta.partial_json
        ) {
          deliver(delta.partial_json);
        }
        return false;
      }
      case "message_delta": {
        const stop = asRecord(data.delta).stop_reason;
        if (typeof stop === "string") state.finishReason = stop;
        const usage = asRecord(data.usage);
        state.inputTokens = numberOrUndefined(usage.input_tokens) ?? state.inputTokens;
        state.outputTokens = numberOrUndefined(usage.output_tokens) ?? state.outputTokens;
        state.usage = makeUsage(state.inputTokens, state.outputTokens);
        return false;
      }
      case "message_stop":
        state.complete = true;
        return true;
      default:
        return false;
    }
  },

  unwrapStreamJson(request, json) {
    return unwrapToolInput(request, json);
  },
};
