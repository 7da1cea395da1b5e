/**
 * A reader that stops reading does not make the gateway hold its backlog without bound:
 * an observer socket (a raw TCP client that completes the handshake and never reads) is
 * closed with 1013 once more than the cap waits unsent, the reply goes on into the
 * session's buffer, and a client that resumes gets it whole — its megabytes of backlog
 * paced by the socket's drain instead of tripping the same cap.
 */
import assert from "node:assert/strict";
import { MAX_BUFFERED_BYTES } from "../lib/chat/mod.ts";
import { gatewayFixture, rawWebSocket, within } from "./fakes/chat_gateway.ts";
import { waitUntil } from "./fakes/wait_until.ts";

/** The close code of the first close frame in a stream of server frames, if any. */
function closeCode(bytes: Uint8Array): number | undefined {
  const head = new TextDecoder().decode(bytes.subarray(0, Math.min(bytes.length, 4096)));
  let at = head.indexOf("\r\n\r\n") + 4;
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at] & 0x0f;
    let length = bytes[at + 1] & 0x7f;
    let start = at + 2;
    if (length === 126) {
      length = (bytes[at + 2] << 8) | bytes[at + 3];
      start = at + 4;
    } else if (length === 127) {
      length = Number(new DataView(bytes.buffer, bytes.byteOffset + at + 2, 8).getBigUint64(0));
      start = at + 10;
    }
    if (opcode === 0x8) return (bytes[start] << 8) | bytes[start + 1];
    at = start + length;
  }
  return undefined;
}

Deno.test({
  name:
    "gateway: a reader that stops reading is closed with 1013 past 4 MiB, and resume still gets every reply",
  async fn() {
    // One long reply in small chunks, each its own event: about 7 MB on the wire, more
    // than the kernel's loopback buffers hold (about 5 MB here). The cap is lowered to
    // 256 KiB (the default, 4 MiB, is checked below) and pings are off, so that what
    // closes the socket is the cap, not the heartbeat.
    const answer = "a long answer that a slow reader will not read. ".repeat(19_000); // ~930 KB
    await using fixture = await gatewayFixture({
      answer: () => answer,
      chunkSize: 20,
      config: {
        entropy_budget: 1_000_000,
        buffer_chunks: 1,
        stream_timeout: 120,
        heartbeat_interval: 300,
      },
      maxBufferedBytes: 256 * 1024,
    });
    const conn = await rawWebSocket(
      fixture.port,
      `/observe/kgent?session=slow&token=${fixture.token}`,
    );
    const sender = await fixture.ws("/perturb/kgent?session=slow");
    sender.message("tell me everything", "c0");
    // Not reading: the reply is still generated into the session's buffer. A client that
    // resumes sees it whole once it is done: megabytes of backlog, paced by its drain.
    await waitUntil(() => fixture.gateway.replyFinished("slow", "c0"), "the reply to finish", {
      timeoutMs: 60_000,
    });
    const back = await fixture.ws("/chat/kgent?session=slow");
    back.send({
      action: "resume",
      version: "1.0.0",
      data: { correlation_id: "c0", after_sequence: 0 },
    });
    await back.done("c0", 90_000);
    const message = back.of("c0").find((event) => event.event_type === "message");
    assert.equal(message?.payload.content, answer, "the reply is whole");
    const wire = back.of("c0").reduce((sum, event) => sum + JSON.stringify(event).length + 4, 0);
    await back.close();
    await sender.close();
    // Now read what the server sent: the connection ends (a 1013 close frame, or the
    // connection dropped with its unsent backlog) long before every reply went out. Reading
    // stops at the close frame, at the end, or when nothing comes for 5 s.
    let bytes = new Uint8Array(0);
    let ended = false;
    const buffer = new Uint8Array(1 << 20);
    while (closeCode(bytes) === undefined) {
      const read = await within(conn.read(buffer), 5000);
      if (read === "timeout") break;
      if (read === null) {
        ended = true;
        break;
      }
      const grown = new Uint8Array(bytes.length + read);
      grown.set(bytes);
      grown.set(buffer.subarray(0, read), bytes.length);
      bytes = grown;
    }
    conn.close();
    const total = bytes.length;
    const code = closeCode(bytes);
    assert.equal(fixture.gateway.slowReadersClosed, 1, "the gateway closed the slow reader");
    // The close frame waits behind the unsent backlog; Deno may end the connection first
    // (its ping got no answer: 1001). Either way the socket is closed and nothing more queues.
    assert.ok(ended || code !== undefined, `the slow socket stayed open (read ${total} bytes)`);
    assert.ok(total < wire - 256 * 1024, `${total} of ${wire} bytes reached the slow reader`);
    assert.equal(MAX_BUFFERED_BYTES, 4 * 1024 * 1024);
  },
});
