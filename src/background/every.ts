// Background chores of a long-running process (purges, sweeps): one run at a time, errors logged,
// and the timer never keeps the process alive by itself.
export interface Repeating {
  stop(): void;
}

export function every(intervalMs: number, task: () => Promise<unknown>, onError: (error: unknown) => void): Repeating {
  let running = false;
  const timer = setInterval(() => {
    if (running) return; // a slow run is not stacked on by the next tick
    running = true;
    task().catch(onError).finally(() => { running = false; });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
