/**
 * Lambda memory chosen by measurement. Lambda gives a function CPU in proportion to its memory,
 * one full vCPU at 1,769 MB; a request's critical path here is single-threaded (the hash on one
 * pool thread, then the write on the main thread), so a share above one vCPU buys nothing. From
 * each operation's measured CPU and wait, the model gives latency and cost per million requests
 * at each size, and picks, per function, the fastest size among those within 5 % of the cheapest.
 * The catalogue's `memoryMb` (functions/shared/contract/operations.ts), which the stack deploys,
 * stands while it costs at most 10 % above the cheapest and no affordable size is more than 5 %
 * faster: sizes a few per cent apart trade places from run to run (duration is billed by the
 * started millisecond), and a deployed size should change for a real difference, not for noise.
 * The run reports its choice beside the catalogue's: a committed full run whose choice differs is
 * a change to make there.
 */

import { round } from './stats';

/** The sizes modelled (MB), arm64. */
export const MEMORY_SIZES_MB = [512, 1024, 1536, 1769, 2048, 3008] as const;
/** Lambda's memory for one full vCPU. */
const FULL_VCPU_MB = 1769;
/** arm64 list prices as of writing (us-east-1): per GB-second of duration, and per request. */
export const ARM64_USD_PER_GB_SECOND = 0.0000133334;
export const USD_PER_MILLION_REQUESTS = 0.2;
/** Within this fraction of the cheapest cost, the fastest size wins (and latencies this close are a tie). */
const COST_SLACK = 0.05;
/** A deployed size stands while it costs at most this fraction above the cheapest. */
const KEEP_SLACK = 0.1;

export interface OperationDemand {
  /** CPU per request on the critical path (hash plus the rest), ms of one full core. */
  readonly cpu_ms: number;
  /** Wall clock per request spent waiting (DynamoDB's answer), ms. */
  readonly wait_ms: number;
}

export interface MemoryModelRow {
  readonly memory_mb: number;
  readonly operation: string;
  readonly p50_ms: number;
  readonly usd_per_million: number;
}

/** Latency and cost per million requests of each operation at each size; duration billed by the started millisecond. */
export function memoryModel(demand: Record<string, OperationDemand>): MemoryModelRow[] {
  const rows: MemoryModelRow[] = [];
  for (const [operation, { cpu_ms, wait_ms }] of Object.entries(demand)) {
    for (const memory_mb of MEMORY_SIZES_MB) {
      const share = Math.min(1, memory_mb / FULL_VCPU_MB);
      const latency = cpu_ms / share + wait_ms;
      const billedSeconds = Math.ceil(latency) / 1000;
      const usd = 1e6 * (memory_mb / 1024) * billedSeconds * ARM64_USD_PER_GB_SECOND + USD_PER_MILLION_REQUESTS;
      rows.push({ memory_mb, operation, p50_ms: round(latency, 1), usd_per_million: round(usd, 4) });
    }
  }
  return rows;
}

/**
 * Per operation, the lowest-latency size among those costing at most 5 % above the cheapest;
 * but the `current` size stands while it costs at most 10 % above the cheapest and that choice is
 * not more than 5 % faster (a dead band: sizes whose cost differs by a billed millisecond trade
 * places from run to run, and a deployed size should change for a real difference only).
 */
export function chooseMemory(rows: readonly MemoryModelRow[], current: Readonly<Record<string, number>> = {}): Record<string, number> {
  const chosen: Record<string, number> = {};
  for (const operation of new Set(rows.map((row) => row.operation))) {
    const mine = rows.filter((row) => row.operation === operation);
    const cheapest = Math.min(...mine.map((row) => row.usd_per_million));
    const affordable = mine.filter((row) => row.usd_per_million <= cheapest * (1 + COST_SLACK));
    // Fastest first; on a tie the smaller size (the same latency for less memory).
    affordable.sort((a, b) => a.p50_ms - b.p50_ms || a.memory_mb - b.memory_mb);
    const best = affordable[0]!;
    const standing = mine.find((row) => row.memory_mb === current[operation]);
    const stands =
      standing !== undefined &&
      standing.usd_per_million <= cheapest * (1 + KEEP_SLACK) &&
      best.p50_ms * (1 + COST_SLACK) >= standing.p50_ms;
    chosen[operation] = stands ? standing.memory_mb : best.memory_mb;
  }
  return chosen;
}
