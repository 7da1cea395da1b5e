/**
 * A peer that floods the gateway and never reads what it is sent. Pings are answered by
 * the runtime (`Deno.upgradeWebSocket`), not by the gateway: its pong is written while the
 * frame is read, so once the peer's receive window is full the runtime stops reading and
 * TCP pushes back on the sender — the pongs wait in the kernel's socket buffers, not in
 * our memory. These tests keep that true (the previous server queued every pong and grew
 * without limit), and pin where frame sizes are enforced: the runtime drops a connection
 * whose frame declares 64 MiB or more; below that the frame is read whole before the
 * gateway's 1 MiB check refuses it. A socket the gateway closed but whose peer hangs on
 * (the close cannot complete) no longer keeps its session from expiring.
 */
import assert from "node:assert/strict";
import { TestSocket } from "./fakes/chat_gateway.ts";
import { processFigures, startChatServe } from "./fakes/chat_serve_child.ts";
import { gatewayFixture, rawWebSocket, within } from "./fakes/chat_gateway.ts";
import { ShiftedClock } from "./fakes/fake_clock.ts";
import { ManualTimers } from "./fakes/manual_timers.ts";
import { waitUntil } from "./fakes/wait_until.ts";

const MIB = 1024 * 1024;

/** A masked client frame (RFC 6455 §5.2); `declared` overrides the length in the header. */
function clientFrame(opcode: number, payload: Uint8Array, declared = payload.length): Uint8Array {
  const mask = [0x12, 0x34, 0x56, 0x78];
  const head = [0x80 | opcode];
  if (declared < 126) head.push(0x80 | declared);
  else if (declared < 65536) head.push(0x80 | 126, declared >> 8, declared & 0xff);
  else {
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(declared));
    head.push(0x80 | 127, ...length);
  }
  const frame = new Uint8Array(head.length + 4 + payload.length);
  frame.set([...head, ...mask]);
  payload.forEach((byte, index) => (frame[head.length + 4 + index] = byte ^ mask[index & 3]));
  return frame;
}

/** Writes all of `bytes`; false when the peer stopped taking them for 2 s. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<boolean> {
  let offset = 0;
  while (offset < bytes.length) {
    const written = await within(conn.write(bytes.subarray(offset)), 2000);
    if (written === "timeout") return false;
    offset += written;
  }
  return true;
}

Deno.test({
  name:
    "syn chat serve: a ping flood from a peer that never reads leaves memory bounded and others served",
  async fn() {
    await using served = await startChatServe();
    const query = `session=flood&token=${served.token}`;
    const normal = await TestSocket.open(`${served.wsUrl}/chat/kgent?${query}`);
    normal.message("hello", "c1");
    await normal.done("c1");
    const conn = await rawWebSocket(served.port, `/chat/kgent?${query}`);
    const pid = served.child.pid;
    const before = processFigures(pid).rssKib;
    // 125-byte pings (the largest a control frame may carry), 64 MiB at most, 10 s at most.
    const ping = clientFrame(0x9, new Uint8Array(125).fill(0x41));
    const batch = new Uint8Array(ping.length * 4096);
    for (let i = 0; i < 4096; i++) batch.set(ping, i * ping.length);
    let sent = 0;
    let peak = before;
    const started = Date.now();
    while (sent < 64 * MIB && Date.now() - started < 10_000) {
      if (!await writeAll(conn, batch)) break;
      sent += batch.length;
      peak = Math.max(peak, processFigures(pid).rssKib);
    }
    peak = Math.max(peak, processFigures(pid).rssKib);
    const grown = (peak - before) / 1024;
    assert.ok(grown < 32, `RSS grew ${grown.toFixed(1)} MiB under ${(sent / MIB).toFixed(1)} MiB`);
    const health = await fetch(`${served.httpUrl}/health`, {
      headers: { authorization: `Bearer ${served.token}` },
      signal: AbortSignal.timeout(5000),
    });
    assert.equal(health.status, 200);
    await health.body?.cancel();
    normal.message("still there?", "c2");
    await normal.done("c2");
    conn.close();
    await normal.close();
  },
});

Deno.test({
  name:
    "gateway: a frame declaring 64 MiB is dropped by the runtime; a 2 MiB one is refused and the socket stays",
  async fn() {
    await using fixture = await gatewayFixture();
    const path = `/chat/kgent?session=big&token=${fixture.token}`;
    const huge = await rawWebSocket(fixture.port, path);
    await writeAll(huge, clientFrame(0x1, new Uint8Array(0), 64 * MIB));
    const buffer = new Uint8Array(4096);
    const ended = await within(huge.read(buffer).catch(() => null), 5000);
    assert.equal(ended, null, "the runtime kept a connection that announced a 64 MiB frame");
    huge.close();

    const client = await TestSocket.open(`${fixture.url}${path}`);
    client.send(JSON.stringify({ action: "message", version: "1.0.0", pad: "x".repeat(2 * MIB) }));
    await client.until(() => client.events.length >= 1, "the refusal");
    assert.equal(client.events[0].payload.code, "INVALID_MESSAGE");
    assert.match(String(client.events[0].payload.message), /larger than 1048576 bytes/);
    client.message("and now a normal one", "c1");
    await client.done("c1");
    await client.close();
  },
});

Deno.test({
  name:
    "gateway: a socket closed for not reading no longer holds its session, which expires while the peer hangs on",
  async fn() {
    // The observer never reads: the gateway closes it (1013) once 256 KiB wait unsent, but
    // its close frame waits behind the unsent bytes, so the socket stays CLOSING for as long
    // as the peer keeps the connection. Pings are off: what closes it is the cap.
    const answer = "a long answer that a slow reader will not read. ".repeat(19_000);
    const clock = new ShiftedClock();
    const timers = new ManualTimers();
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
      sessionTtlSeconds: 60,
      clock,
      timers,
    });
    const conn = await rawWebSocket(
      fixture.port,
      `/observe/kgent?session=hung&token=${fixture.token}`,
    );
    const sender = await fixture.ws("/perturb/kgent?session=hung");
    sender.message("tell me everything", "c0");
    await waitUntil(() => fixture.gateway.replyFinished("hung", "c0"), "the reply to finish", {
      timeoutMs: 60_000,
    });
    assert.equal(fixture.gateway.slowReadersClosed, 1, "the slow reader was not closed");
    await sender.close();
    // Only the hung connection is left; one sweep past the TTL expires the session anyway.
    await waitUntil(() => fixture.gateway.socketCount === 1, "the sender's socket to go");
    clock.skip(60_001);
    assert.equal(timers.fire(15_000), 1, "the sweeper is armed");
    await waitUntil(
      () => fixture.gateway.sessionCount === 0,
      "the session to expire (the closed socket holds it)",
    );
    assert.equal(fixture.gateway.socketCount, 1, "the hung connection is still counted");
    conn.close();
  },
});
