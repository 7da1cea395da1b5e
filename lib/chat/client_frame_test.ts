import assert from "node:assert/strict";
import { type ClientFrame, clientFrameParser, MAX_FRAME_BYTES } from "./client_frame.ts";

async function parse(frame: unknown): Promise<ClientFrame> {
  return (await clientFrameParser())(typeof frame === "string" ? frame : JSON.stringify(frame));
}

/** Asserts an INVALID_MESSAGE whose message names `pointer`, addressed to `correlationId`. */
async function refused(frame: unknown, pointer: string, correlationId?: string): Promise<void> {
  const result = await parse(frame);
  assert.ok("error" in result, `accepted: ${JSON.stringify(frame).slice(0, 200)}`);
  assert.equal(result.error.code, "INVALID_MESSAGE");
  assert.ok(
    result.error.message.startsWith(`Invalid frame: ${pointer}: `),
    `${result.error.message} does not name ${pointer}`,
  );
  assert.equal(result.correlationId, correlationId);
}

Deno.test("clientFrameParser() reads valid message, stop and resume frames", async () => {
  assert.deepEqual(
    await parse({
      action: "message",
      version: "1.0.0",
      data: { content: "hi", correlation_id: "c" },
    }),
    { action: "message", message: { content: "hi", mode: "reflect", correlation_id: "c" } },
  );
  assert.deepEqual(await parse({ action: "stop", data: { correlation_id: "c" } }), {
    action: "stop",
    correlationId: "c",
  });
  assert.deepEqual(
    await parse({ action: "resume", version: "1.0.0", data: { correlation_id: "c" } }),
    { action: "resume", correlationId: "c", afterSequence: 0 },
  );
  const made = await parse({ action: "message", version: "1.0.0", data: { content: "hi" } });
  assert.ok("action" in made && made.action === "message" && made.message.correlation_id);
});

Deno.test("clientFrameParser() refuses a schema-invalid message with the pointer", async () => {
  /** `version` null: left out. */
  const message = (data: Record<string, unknown>, version: unknown = "1.0.0") => ({
    action: "message",
    ...(version === null ? {} : { version }),
    data: { correlation_id: "m1", ...data },
  });
  await refused(message({ content: "hi" }, null), "/", "m1");
  await refused(message({ content: "hi" }, "0.9"), "/version", "m1");
  await refused(message({ content: "   " }), "/data/content", "m1");
  await refused(message({ content: 5 }), "/data/content", "m1");
  await refused(message({ content: "a".repeat(64 * 1024 + 1) }), "/data/content", "m1");
  await refused(message({ content: "hi", mode: ["reflect"] }), "/data/mode", "m1");
  await refused(message({ content: "hi", correlation_id: "has space" }), "/data/correlation_id");
  await refused(
    message({ content: "hi", correlation_id: "x".repeat(129) }),
    "/data/correlation_id",
  );
});

Deno.test("clientFrameParser() refuses a schema-invalid stop with the pointer", async () => {
  await refused({ action: "stop", data: {} }, "/data");
  await refused({ action: "stop", data: { correlation_id: 7 } }, "/data/correlation_id");
  await refused(
    { action: "stop", version: "2.0.0", data: { correlation_id: "s1" } },
    "/version",
    "s1",
  );
  await refused({ action: "stop" }, "/");
});

Deno.test("clientFrameParser() refuses a schema-invalid resume with the pointer", async () => {
  const resume = (after: unknown) => ({
    action: "resume",
    data: { correlation_id: "r1", after_sequence: after },
  });
  await refused(resume(-1), "/data/after_sequence", "r1");
  await refused(resume(1.5), "/data/after_sequence", "r1");
  await refused(resume("3"), "/data/after_sequence", "r1");
  await refused({ action: "resume", data: [] }, "/data");
});

Deno.test("clientFrameParser() refuses what is no frame at all", async () => {
  await refused({ action: "dance", data: { correlation_id: "d1" } }, "/action", "d1");
  await refused({ data: {} }, "/");
  await refused([1], "/");
  await refused(null, "/");
  const notJson = await parse("not json");
  assert.ok("error" in notJson);
  assert.deepEqual(notJson.error, { code: "INVALID_MESSAGE", message: "Frame is not JSON" });
  const big = await parse(JSON.stringify({ action: "stop", pad: "é".repeat(MAX_FRAME_BYTES / 2) }));
  assert.ok("error" in big && /larger than 1048576 bytes/.test(big.error.message));
  const binary = (await clientFrameParser())(new ArrayBuffer(4));
  assert.ok("error" in binary && binary.error.message === "Frames must be JSON text");
});
