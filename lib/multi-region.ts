/**
 * ADR 20's decided figures for running a stage in two Regions: the recovery targets and the write
 * lease's timings. Nothing is built on them yet (ADR 20, "Consequences"); they are written here, in
 * code, so that the ADR states them from one place and the future lease keeper, the functions and the
 * sign-in module read the same values.
 */

/** Recovery time objective after losing the active Region: writes accepted again in the other one. */
export const RTO_MINUTES = 15;
/** Recovery point objective of a planned move: no acknowledged write left behind. */
export const PLANNED_RPO_SECONDS = 0;
/**
 * Acknowledged writes an unplanned loss may defer to reconciliation (held in the lost Region, not
 * replicated yet): the target the replication-latency alarm guards.
 */
export const UNPLANNED_RPO_SECONDS = 60;
/** How long a write lease lasts once renewed: the longest a cut-off Region keeps writing. */
export const LEASE_SECONDS = 60;
/** How often the active Region's keeper renews its lease (three tries within one lease). */
export const LEASE_RENEW_SECONDS = 20;
/** Clock difference allowed between Regions: a writer stops this much before its lease's end, and the new Region waits this much after it. */
export const CLOCK_SKEW_SECONDS = 5;
/** How long a writer (a function, the sign-in module) trusts a lease it read before reading it again. */
export const LEASE_CACHE_SECONDS = 5;
