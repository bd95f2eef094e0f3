import { jest } from '@jest/globals';

/**
 * Fakes Date only (from `now`, default the real time): the key cache, key expiry and the last-use
 * hour read Date.now(), while I/O, timers and performance.now() run for real. Undo with
 * jest.useRealTimers().
 */
export function fakeDateOnly(now?: number): void {
  jest.useFakeTimers({
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
    ...(now !== undefined && { now }),
  });
}
