/**
 * A bare line relay, the floor of any stdio proxy's overhead: starts the command after its
 * arguments and copies its standard input to the command's and the command's standard
 * output to its own, nothing else (`deno run -A scripts/_line_relay.ts <command> [args…]`).
 */
const [command, ...args] = Deno.args;
const child = new Deno.Command(command, {
  args,
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
await Promise.all([
  Deno.stdin.readable.pipeTo(child.stdin).catch(() => {}),
  child.stdout.pipeTo(Deno.stdout.writable).catch(() => {}),
]);
Deno.exit((await child.status).code);
