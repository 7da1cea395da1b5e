/**
 * The gate of the Unix socket transport tests: `LABS_SOCKET_TESTS` (Labs spec: "enable
 * socket tests", default 0, skip if unsupported). Unset or 0: they run where a Unix socket
 * can be made and are ignored, with one visible line, where it cannot (a platform or
 * sandbox without them). 1: they must run, so a missing socket is a failure, not a skip.
 * Use as `Deno.test({ ignore: SOCKET_TESTS.ignore, … })`.
 */
import { loadConfig } from "../../lib/core/mod.ts";

/** Whether the socket tests are ignored, and why. */
export interface SocketTestGate {
  ignore: boolean;
  reason?: string;
}

/** Decides the gate: `required` is `LABS_SOCKET_TESTS=1`; `problem` why no socket can be made. */
export function socketTestGate(options: { required: boolean; problem?: string }): SocketTestGate {
  if (options.problem === undefined || options.required) return { ignore: false };
  return { ignore: true, reason: `Unix sockets are not available here: ${options.problem}` };
}

/** Why a Unix socket cannot be listened on here, or `undefined` when it can. */
export function unixSocketProblem(): string | undefined {
  let dir: string | undefined;
  try {
    dir = Deno.makeTempDirSync({ prefix: "syn_sock_probe_" });
    Deno.listen({ transport: "unix", path: `${dir}/probe.sock` }).close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    if (dir) Deno.removeSync(dir, { recursive: true });
  }
}

/** The gate for this run, from the environment (the suite's own configuration). */
export const SOCKET_TESTS: SocketTestGate = socketTestGate({
  required: loadConfig((name) => Deno.env.get(name)).labs.socketTests,
  problem: unixSocketProblem(),
});
if (SOCKET_TESTS.ignore) {
  console.warn(
    `socket tests ignored: ${SOCKET_TESTS.reason} (LABS_SOCKET_TESTS=1 makes them required)`,
  );
}
