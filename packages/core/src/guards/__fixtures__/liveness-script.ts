/**
 * A process that makes guarded calls with a timeout and then lets its event loop run dry, in
 * the way given as argv[2]: `settled` (every call settles at once), `hung` (one call's tool
 * never settles: the guard's deadline must keep the process alive until it fails the call),
 * `io` (calls that settle on later turns of the event loop). Prints how the last call ended.
 */
import { guard } from '../guard.js';

const mode = process.argv[2];
const timeoutSeconds = 0.3;
const started = Date.now();

if (mode === 'settled') {
  const fn = guard(async (q: string) => q, { timeout: { timeoutSeconds: 30 } });
  for (let i = 0; i < 100; i++) await fn('q');
  console.log('settled');
} else if (mode === 'io') {
  const fn = guard((q: string) => new Promise((resolve) => setImmediate(resolve, q)), {
    timeout: { timeoutSeconds: 30 },
  });
  for (let i = 0; i < 20; i++) await fn('q');
  console.log('io');
} else {
  // calls that settled first: the timer exists and was let go of before the hung call starts
  const fn = guard((q: string) => (q === 'hang' ? new Promise(() => {}) : Promise.resolve(q)), {
    timeout: { timeoutSeconds },
  });
  for (let i = 0; i < 3; i++) await fn('q');
  await new Promise((resolve) => setImmediate(resolve));
  fn('hang').then(
    () => console.log('resolved'),
    (error: { code?: string }) =>
      console.log(`${error.code} after ${Date.now() - started >= timeoutSeconds * 1000 - 20}`),
  );
}
