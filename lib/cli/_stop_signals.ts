/**
 * The one place a command listens for the signals that stop it. Deno handles a signal only
 * while a listener is registered, and a listener does not keep the process alive; with none,
 * SIGTERM ends the process with 143 instead of letting it finish cleanly.
 */

/** The signals that ask a server to stop: Ctrl-C and `kill`. */
export const STOP_SIGNALS: readonly Deno.Signal[] = ["SIGINT", "SIGTERM"];

/**
 * Calls `stop` on each of `signals` (default SIGINT and SIGTERM) until the returned function
 * is called. A signal this platform or process cannot listen to (SIGTERM on Windows, no
 * signals in a test's io) is skipped: it then acts as it would without syn.
 */
export function onStopSignals(
  stop: () => void,
  signals: readonly Deno.Signal[] = STOP_SIGNALS,
): () => void {
  const listening = signals.filter((signal) => {
    try {
      Deno.addSignalListener(signal, stop);
      return true;
    } catch {
      return false;
    }
  });
  return () => {
    for (const signal of listening.splice(0)) Deno.removeSignalListener(signal, stop);
  };
}

/**
 * Ctrl-C (SIGINT) or SIGTERM during a job that should end cleanly rather than die (a batch
 * of generations, a run of stills): listens while it exists (`using`), aborts `controller`
 * at the first signal, and says which signal came and the exit code the shell gives it.
 */
export class Interruption {
  readonly controller = new AbortController();
  signal: Deno.Signal | undefined;
  readonly #stop: () => void;

  constructor() {
    const stops = (["SIGINT", "SIGTERM"] as const).map((name) =>
      onStopSignals(() => {
        this.signal ??= name;
        this.controller.abort();
      }, [name])
    );
    this.#stop = () => stops.forEach((stop) => stop());
  }

  get interrupted(): boolean {
    return this.controller.signal.aborted;
  }

  /** The exit code of an interrupted run: 128 + the signal's number. */
  get exitCode(): number {
    return this.signal === "SIGTERM" ? 143 : 130;
  }

  [Symbol.dispose](): void {
    this.#stop();
  }
}

/** The shell's numbers of the signals syn ends on (an exit code is 128 + the number). */
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/**
 * For an interactive loop that cannot be woken (it is reading a terminal) but must clean up
 * before the process ends: at the first SIGTERM or SIGHUP (the terminal went away), awaits
 * `end` once, then exits with the shell's code for that signal (143, 129).
 */
export function onEndSignals(end: () => Promise<void>): () => void {
  let ending = false;
  const stops = (["SIGTERM", "SIGHUP"] as const).map((name) =>
    onStopSignals(() => {
      if (ending) return;
      ending = true;
      void end().catch(() => {}).finally(() => Deno.exit(128 + SIGNAL_NUMBERS[name]));
    }, [name])
  );
  return () => stops.forEach((stop) => stop());
}
