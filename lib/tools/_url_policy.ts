import type { ToolPolicy } from "./tool_descriptor.ts";
import { ToolFailure } from "./tool_failure.ts";

/** Longest URL accepted. */
export const MAX_URL_CHARS = 8192;

/** What kind of address an IP is; only `public` is reachable without an exact grant. */
export type AddressClass = "public" | "loopback" | "private" | "link-local" | "reserved";

/**
 * Parses and checks a URL for `http.get`: http or https only, no credentials in it, at
 * most 8 KiB. WHATWG parsing normalizes odd IPv4 spellings (`2130706433`, `0x7f.1`,
 * `127.1`) to dotted form, so later checks see the real address.
 */
export function checkUrl(text: string): URL {
  if (text.length > MAX_URL_CHARS) {
    throw new ToolFailure("invalid_args", `URL is longer than ${MAX_URL_CHARS} characters`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolFailure("invalid_args", "Not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolFailure(
      "not_allowed",
      `Only http and https URLs are allowed, not ${url.protocol.slice(0, 20)}`,
    );
  }
  if (url.username || url.password) {
    throw new ToolFailure("not_allowed", "Credentials in the URL are not allowed");
  }
  if (!url.hostname) throw new ToolFailure("invalid_args", "URL has no host");
  return url;
}

/** The host as capabilities name it: lower case, no trailing dot, IPv6 without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, "").replace(/^\[(.*)\]$/, "$1");
}

function exactGrants(policy: ToolPolicy): string[] {
  return policy.granted.filter((cap) => cap.startsWith("net:")).map((cap) => cap.slice(4));
}

/**
 * Spectator §4: allowed if `net` or `net:<host>` is granted; with a global allowlist,
 * `net` allows only allowlisted hosts while `net:<host>` overrides it. Host names match
 * exactly (case and a trailing dot aside) — `net:example.com` does not cover
 * `api.example.com`, as Deno's own net permission does not. Returns whether the grant is
 * exact (only an exact grant opens loopback and private addresses).
 */
export function netDecision(policy: ToolPolicy, host: string): { exact: boolean } {
  if (exactGrants(policy).includes(host)) return { exact: true };
  if (policy.granted.includes("net")) {
    const allow = policy.allowHosts.map((item) => item.toLowerCase().replace(/\.$/, ""));
    if (allow.length === 0 || allow.includes(host)) return { exact: false };
    throw new ToolFailure(
      "capability_required",
      `${host} is not on the network allowlist; grant net:${host} to reach it`,
    );
  }
  throw new ToolFailure(
    "capability_required",
    `http.get needs a network capability: grant net:${host} (or net)`,
  );
}

/** The hosts the sandbox worker's Deno `net` permission gets (`true`: all). */
export function sandboxNetHosts(policy: ToolPolicy): string[] | true {
  const exact = exactGrants(policy).map((host) => (host.includes(":") ? `[${host}]` : host));
  if (!policy.granted.includes("net")) return exact;
  if (policy.allowHosts.length === 0) return true;
  return [
    ...new Set([
      ...policy.allowHosts.map((host) => host.toLowerCase().replace(/\.$/, "")),
      ...exact,
    ]),
  ];
}

/** Resolves a host name with the system resolver (so /etc/hosts counts), every address. */
export async function systemResolveHost(hostname: string): Promise<string[]> {
  // Loaded at the first lookup: node:dns brings much of Deno's Node layer with it, which
  // a session that never fetches (and `syn tools run fs.*`) should not pay for.
  const { lookup } = await import("node:dns/promises");
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/**
 * Refuses a host any of whose addresses is not public, unless it was granted exactly. An
 * IP literal is classified as it is; a name is resolved first.
 */
export async function checkAddresses(
  host: string,
  exact: boolean,
  resolveHost: (host: string) => Promise<string[]>,
): Promise<void> {
  if (exact) return;
  let addresses: string[];
  if (isIpLiteral(host)) addresses = [host];
  else {
    try {
      addresses = await resolveHost(host);
    } catch {
      throw new ToolFailure("not_found", `Cannot resolve host ${host}`);
    }
  }
  if (addresses.length === 0) throw new ToolFailure("not_found", `Cannot resolve host ${host}`);
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind !== "public") {
      throw new ToolFailure(
        "not_allowed",
        `${host} is a ${kind} address; only an exact grant (net:${host}) reaches it`,
      );
    }
  }
}

function isIpLiteral(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(":");
}

/** The class of an IPv4 or IPv6 address (IPv4 embedded in IPv6 counts as its IPv4). */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIpv4(address);
  if (v4) return classifyIpv4(v4);
  const v6 = parseIpv6(address);
  if (!v6) return "reserved";
  return classifyIpv6(v6);
}

function parseIpv4(text: string): number[] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return undefined;
  const parts = match.slice(1).map(Number);
  return parts.every((part) => part <= 255) ? parts : undefined;
}

function classifyIpv4([a, b, c]: number[]): AddressClass {
  if (a === 0 || a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 100 && b >= 64 && b <= 127) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a >= 224) return "reserved";
  if ((a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && (b === 18 || b === 19))) {
    return "reserved";
  }
  if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) {
    return "reserved";
  }
  return "public";
}

function parseIpv6(text: string): number[] | undefined {
  let address = text.replace(/^\[|\]$/g, "").toLowerCase();
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(":");
  const v4 = parseIpv4(address.slice(lastColon + 1));
  if (v4) {
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    address = address.slice(0, lastColon + 1) + "0:0";
  }
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const parse = (
    part: string,
  ) => (part
    ? part.split(":").map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? parseInt(group, 16) : NaN))
    : []);
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 && missing !== 0) return undefined;
  if (missing < 0) return undefined;
  const groups = [...head, ...new Array(halves.length === 2 ? missing : 0).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((group) => Number.isNaN(group))) return undefined;
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

function embeddedIpv4(high: number, low: number): number[] {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

function classifyIpv6(g: number[]): AddressClass {
  const zeroPrefix = (count: number) => g.slice(0, count).every((group) => group === 0);
  if (zeroPrefix(8)) return "loopback"; // ::
  if (zeroPrefix(7) && g[7] === 1) return "loopback"; // ::1
  if (zeroPrefix(5) && g[5] === 0xffff) return classifyIpv4(embeddedIpv4(g[6], g[7])); // ::ffff:a.b.c.d
  if (zeroPrefix(6)) return "reserved"; // ::a.b.c.d (deprecated IPv4-compatible)
  if (g[0] === 0x64 && g[1] === 0xff9b) return classifyIpv4(embeddedIpv4(g[6], g[7])); // NAT64
  if (g[0] === 0x2002) return classifyIpv4(embeddedIpv4(g[1], g[2])); // 6to4
  if ((g[0] & 0xfe00) === 0xfc00) return "private";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xff00) === 0xff00) return "reserved";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "reserved";
  return "public";
}
