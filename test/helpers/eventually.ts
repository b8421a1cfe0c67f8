// Polling until a read is accepted, for tests of things that settle asynchronously (a projection, a
// process that exits). No suite setup behind it: the integration and topology suites both use it.

/** Reads until `accept` takes the value; throws with the last value once `timeoutMs` has passed. */
export async function eventually<T>(fn: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000, intervalMs = 150): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
    last = await fn();
  }
  return last;
}
