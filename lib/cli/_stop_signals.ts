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
