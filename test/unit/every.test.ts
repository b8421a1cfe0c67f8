import { every } from '../../src/background/every';

afterEach(() => { jest.useRealTimers(); });

it('runs the task each interval, never two runs at once, and reports failures', async () => {
  jest.useFakeTimers();
  const errors: unknown[] = [];
  let runs = 0;
  let finish: () => void = () => undefined;
  const chore = every(1000, () => {
    runs += 1;
    if (runs === 2) return Promise.reject(new Error('database away'));
    return new Promise<void>((resolve) => { finish = resolve; });
  }, (error) => errors.push(error));

  await jest.advanceTimersByTimeAsync(3500);
  expect(runs).toBe(1); // the first run has not finished: later ticks skip
  finish();
  await jest.advanceTimersByTimeAsync(1000);
  expect(runs).toBe(2);
  expect(errors).toEqual([new Error('database away')]);
  await jest.advanceTimersByTimeAsync(1000);
  expect(runs).toBe(3); // a failed run does not stop the chore
  chore.stop();
  finish();
  await jest.advanceTimersByTimeAsync(5000);
  expect(runs).toBe(3);
});
