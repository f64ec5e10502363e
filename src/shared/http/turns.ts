// When work that holds the event loop (statements, synchronous on SQLite) may run without
// delaying a request just made (docs/online-evaluation.md#jobs).
//
// undici writes a request on an idle kept-alive connection only in the next check phase (it first
// lets the loop read a close the peer may have sent meanwhile: client-h1's idle-socket
// validation). Work queued by a plain `setImmediate` before the request was made runs in that
// check phase first, and the request waits for it: the case of a runner that schedules its
// follow-up work when an answer comes and makes the next call a few awaits later.

/** Runs `work` in the check phase after this turn's: the requests made in this turn are written by then. */
export function afterRequestsSent(work: () => void): void {
  setImmediate(() => setImmediate(work));
}

/**
 * `work` to run once after the requests of the turn it is asked in are written
 * (`afterRequestsSent`), however often it is asked before it runs.
 */
export function onceAfterRequestsSent(work: () => void): () => void {
  let due = false;
  return () => {
    if (due) return;
    due = true;
    afterRequestsSent(() => {
      due = false;
      work();
    });
  };
}
