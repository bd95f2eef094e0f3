/**
 * The Pwned Passwords range API itself (k-anonymity), with nothing of the service's logging or metrics,
 * so that the sign-in package can carry it: only the first 5 hex characters of the password's SHA-1
 * leave the process, with `Add-Padding: true` so the answer's size tells nothing either; the answer's
 * lines are `<35-hex suffix>:<count>`, padding lines count 0. Any failure is 'unavailable' (fail-open).
 */

import { createHash } from 'node:crypto';

/** The contract's bound on the online check. */
export const PWNED_PASSWORDS_TIMEOUT_MS = 1_000;

/** The public service, what a stage with the check on calls. */
export const PWNED_PASSWORDS_API = 'https://api.pwnedpasswords.com';

export type BreachAnswer = 'found' | 'not_found' | 'unavailable';

/** A check against the range API at `baseUrl` (`<base>/range/<prefix>`); `onUnavailable` hears of each failure. */
export function pwnedRangeCheck(
  baseUrl: string,
  timeoutMs: number,
  onUnavailable: (error: unknown) => void,
): (password: string) => Promise<BreachAnswer> {
  const base = baseUrl.replace(/\/+$/, '');
  return async (password) => {
    const sha1 = createHash('sha1').update(password).digest('hex').toUpperCase();
    const prefix = sha1.slice(0, 5);
    const suffix = sha1.slice(5);
    try {
      const response = await fetch(`${base}/range/${prefix}`, {
        headers: { 'Add-Padding': 'true' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const text = await response.text();
      for (const line of text.split('\n')) {
        const [hash, count] = line.trim().split(':');
        if (hash?.toUpperCase() === suffix) return Number(count) > 0 ? 'found' : 'not_found';
      }
      return 'not_found';
    } catch (error) {
      onUnavailable(error);
      return 'unavailable';
    }
  };
}
