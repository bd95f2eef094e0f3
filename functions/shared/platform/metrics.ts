import { Metrics } from '@aws-lambda-powertools/metrics';

/** The business counter: one data point per request, by operation and outcome. */
export const REQUESTS_METRIC = 'requests';

/**
 * The counter's only dimensions, both of a handful of values. Never an owner, e-mail or key: each
 * distinct value would be a metric of its own (billed), and they identify people.
 */
export const METRIC_DIMENSIONS = ['operation', 'outcome'] as const;

/** Lifecycle events kept for replay after every delivery try failed: its alarm fires on the first. */
export const UNDELIVERED_EVENTS_METRIC = 'undeliveredEvents';

/**
 * The undelivered-events count's one dimension set. An EMF line needs at least one set (Powertools
 * prints `"Dimensions":[]` when there is none, which the specification's schema refuses), and the
 * alarm must name exactly the same set, as CloudWatch matches a metric by all its dimensions.
 */
export const UNDELIVERED_EVENTS_DIMENSIONS = { consumer: 'lifecycle-events' } as const;

/** Online password checks that failed or timed out: the offline list alone decided. */
export const BREACH_CHECK_UNAVAILABLE_METRIC = 'breachCheckUnavailable';

/** Its one dimension set (an EMF line needs one; its alarm names the same set, as CloudWatch matches all dimensions). */
export const BREACH_CHECK_DIMENSIONS = { check: 'pwned-passwords' } as const;

/** The outcome of a request the function answered with 500. */
export const FAILED_OUTCOME = 'failed';

/** Each stage's metrics live in their own namespace, so the dimensions need not name the stage. */
export const metricsNamespace = (stage: string) => `UserManagement/${stage}`;

/**
 * The one Metrics instance (CloudWatch embedded metric format: a JSON line on stdout that
 * CloudWatch turns into metrics, no API call). The pipeline flushes it after every request.
 */
export const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || metricsNamespace('local') });
// Powertools adds a `service` dimension by default; the namespace already names the service and stage.
metrics.clearDefaultDimensions();
