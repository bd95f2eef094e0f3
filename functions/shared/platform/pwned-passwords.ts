/**
 * The optional online check (Pwned Passwords range API, k-anonymity): only the first 5 hex
 * characters of the password's SHA-1 leave the process, with `Add-Padding: true` so the answer's
 * size tells nothing either; the answer's lines are `<35-hex suffix>:<count>`, padding lines count 0.
 * At most {@link PWNED_PASSWORDS_TIMEOUT_MS}; any failure is 'unavailable' (the offline list alone
 * decides: fail-open) and counted by {@link BREACH_CHECK_UNAVAILABLE_METRIC} (dimension set {@link BREACH_CHECK_DIMENSIONS}).
 */

import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from './logger';
import { BREACH_CHECK_DIMENSIONS, BREACH_CHECK_UNAVAILABLE_METRIC, metrics } from './metrics';

import { type BreachAnswer, PWNED_PASSWORDS_TIMEOUT_MS, pwnedRangeCheck } from './pwned-range';

export { type BreachAnswer, PWNED_PASSWORDS_API, PWNED_PASSWORDS_TIMEOUT_MS } from './pwned-range';

/** What a service does when the check is unavailable: a warning by error name, and the metric its alarm watches. */
function countUnavailable(error: unknown): void {
  // Never the password or its hash: the error's name says enough.
  logger.warn('Pwned Passwords check unavailable: the offline list alone decides', { error_name: (error as Error | undefined)?.name });
  // Its own line, flushed now, with its own dimension set instead of the request's (Powertools' `service` cleared).
  const single = metrics.singleMetric();
  single.clearDefaultDimensions();
  single.addDimensions(BREACH_CHECK_DIMENSIONS);
  single.addMetric(BREACH_CHECK_UNAVAILABLE_METRIC, MetricUnit.Count, 1);
}

/**
 * A check against the range API at `baseUrl` (`<base>/range/<prefix>`). `onUnavailable` hears of each
 * failure; by default the log's warning and the metric (the admin CLI, whose stdout is its counts line,
 * passes its own).
 */
export function pwnedPasswordsCheck(
  baseUrl: string,
  timeoutMs = PWNED_PASSWORDS_TIMEOUT_MS,
  onUnavailable: (error: unknown) => void = countUnavailable,
): (password: string) => Promise<BreachAnswer> {
  return pwnedRangeCheck(baseUrl, timeoutMs, onUnavailable);
}
