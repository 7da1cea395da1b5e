import assert from "node:assert/strict";
import { traceRecord } from "./trace_file.ts";

Deno.test("traceRecord() keeps names and shape of tool arguments, never their content", () => {
  const event = {
    ts: 1,
    kind: "tool_done",
    data: {
      tool_id: "fs.write_text",
      input_params: {
        path: "a/b.txt",
        text: "secret body",
        overwrite: true,
        nested: [{ headers: { cookie: "c=1" } }],
        url: "https://user:pw@host.test/p?token=abc#frag",
        other: "***redacted***",
      },
      output_summary: '{"ok":true,"quote":"secret body"}',
      latency_ms: 3,
    },
  };
  assert.deepEqual(traceRecord(event).data, {
    tool_id: "fs.write_text",
    input_params: {
      path: "a/b.txt",
      text: "<11 chars>",
      overwrite: true,
      nested: [{ headers: { cookie: "<3 chars>" } }],
      url: "https://host.test/p?<15 chars>",
      other: "***redacted***",
    },
    output_summary: "<33 chars>",
    latency_ms: 3,
  });
  assert.equal(event.data.input_params.text, "secret body", "the event itself is not changed");
});

Deno.test("traceRecord() keeps only the program name of a shell.exec command line", () => {
  const record = (cmd: string) =>
    traceRecord({
      ts: 1,
      kind: "tool_start",
      data: { tool_id: "shell.exec", input_params: { cmd, timeout_s: 5 } },
    }).data.input_params;
  assert.deepEqual(record("curl -H 'Authorization: Bearer abc' https://x.test"), {
    cmd: "curl <45 chars>",
    timeout_s: 5,
  });
  assert.deepEqual(record("  /usr/bin/grep -r password ."), {
    cmd: "grep <13 chars>",
    timeout_s: 5,
  });
  assert.deepEqual(record("ls"), { cmd: "ls", timeout_s: 5 });
  // A first word that is not a plain program name keeps nothing but its length.
  assert.deepEqual(record("'my secret' x"), { cmd: "<13 chars>", timeout_s: 5 });
  assert.deepEqual(record("A=secret env"), { cmd: "<12 chars>", timeout_s: 5 });
});
