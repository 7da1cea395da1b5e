import assert from "node:assert/strict";
import { checkUrl, classifyAddress, hostOf, netDecision, sandboxNetHosts } from "./_url_policy.ts";
import type { ToolPolicy } from "./tool_descriptor.ts";

Deno.test("classifyAddress() knows loopback, private, link-local and reserved in every form", () => {
  const cases: [string, string][] = [
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["0.0.0.0", "loopback"],
    ["::", "loopback"],
    ["::1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["100.64.0.1", "private"],
    ["fd00::1", "private"],
    ["fc12::", "private"],
    ["::ffff:a00:1", "private"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["224.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["ff02::1", "reserved"],
    ["::7f00:1", "reserved"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:7f00:1::", "loopback"],
    ["2001:db8::1", "reserved"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["2606:4700::1111", "public"],
    ["not-an-ip", "reserved"],
  ];
  for (const [address, kind] of cases) assert.equal(classifyAddress(address), kind, address);
});

Deno.test("checkUrl() normalizes odd IPv4 spellings so the real address is checked", () => {
  for (
    const text of [
      "http://2130706433/",
      "http://0x7f.1/",
      "http://127.1/",
      "http://0177.0.0.1/",
      "http://0x7f000001/",
    ]
  ) {
    assert.equal(hostOf(checkUrl(text)), "127.0.0.1", text);
  }
  assert.equal(hostOf(checkUrl("http://[::ffff:127.0.0.1]/")), "::ffff:7f00:1");
  assert.equal(hostOf(checkUrl("http://Example.COM./")), "example.com");
  assert.throws(() => checkUrl("ftp://example.com/"), /Only http and https/);
  assert.throws(() => checkUrl("http://a:b@example.com/"), /Credentials/);
});

Deno.test("netDecision() and sandboxNetHosts() follow Spectator §4", () => {
  const policy = (granted: string[], allowHosts: string[] = []): ToolPolicy => ({
    root: "/r",
    granted,
    allowHosts,
    shellAllow: [],
    bubblewrap: false,
  });
  assert.deepEqual(netDecision(policy(["net"]), "a.com"), { exact: false });
  assert.deepEqual(netDecision(policy(["net:a.com"], ["b.com"]), "a.com"), { exact: true });
  assert.throws(() => netDecision(policy(["net"], ["b.com"]), "a.com"), /allowlist/);
  assert.throws(() => netDecision(policy([]), "a.com"), /grant net:a.com/);
  assert.throws(
    () => netDecision(policy(["net:a.com"]), "api.a.com"),
    /needs a network capability/,
  );
  assert.equal(sandboxNetHosts(policy(["net"])), true);
  assert.deepEqual(sandboxNetHosts(policy(["net"], ["B.com."])), ["b.com"]);
  assert.deepEqual(sandboxNetHosts(policy(["net:a.com", "net:::1"])), ["a.com", "[::1]"]);
  assert.deepEqual(sandboxNetHosts(policy([])), []);
});
