/** The bench's Lambda memory model (bench/lambda-memory.ts): latency, cost and the choice it writes for the stack. */

import { describe, expect, it } from '@jest/globals';
import { chooseMemory, MEMORY_SIZES_MB, memoryModel } from '../../bench/lambda-memory';

describe('Lambda memory model', () => {
  const rows = memoryModel({ createUser: { cpu_ms: 9, wait_ms: 3 }, deleteUser: { cpu_ms: 2, wait_ms: 3 } });
  const row = (operation: string, memory_mb: number) => rows.find((r) => r.operation === operation && r.memory_mb === memory_mb)!;

  it('models every size for every operation', () => {
    expect(rows).toHaveLength(2 * MEMORY_SIZES_MB.length);
  });

  it('scales CPU by the vCPU share, capped at one vCPU (1,769 MB), and adds the wait', () => {
    expect(row('createUser', 512).p50_ms).toBeCloseTo((9 * 1769) / 512 + 3, 1);
    expect(row('createUser', 1769).p50_ms).toBe(12);
    expect(row('createUser', 3008).p50_ms).toBe(12);
  });

  it('bills GB-seconds by the started millisecond at the arm64 list price, plus $0.20 per million requests', () => {
    // 1,024 MB, 18.5 ms billed as 19 ms: 1 GB x 0.019 s x $0.0000133334 x 1e6 + $0.20.
    expect(row('createUser', 1024).usd_per_million).toBeCloseTo(0.019 * 13.3334 + 0.2, 3);
  });

  it('chooses the fastest size within 5 % of the cheapest', () => {
    // createUser: 512 MB is cheapest, 1,024 MB is 4.6 % dearer and twice as fast, 1,536 MB 11 % dearer.
    // deleteUser: 1,024 MB is already 10 % dearer than 512 MB.
    expect(chooseMemory(rows)).toEqual({ createUser: 1024, deleteUser: 512 });
  });

  it("keeps the catalogue's size while it costs at most 10 % above the cheapest and nothing affordable is more than 5 % faster", () => {
    // 10.6 ms CPU, 1.2 ms wait: 512 MB cheapest; 1,024 MB 3 % dearer (19.5 ms); 1,769 MB 5.1 % dearer (11.8 ms).
    const close = memoryModel({ resetUserPassword: { cpu_ms: 10.6, wait_ms: 1.2 } });
    expect(chooseMemory(close)).toEqual({ resetUserPassword: 1024 });
    // Deployed at 1,769 MB: a billed millisecond from the band and the fastest: it stands.
    expect(chooseMemory(close, { resetUserPassword: 1769 })).toEqual({ resetUserPassword: 1769 });
    // 3,008 MB costs 48 % more: replaced. 512 MB is the cheapest, but 1,024 MB is twice as fast: replaced.
    expect(chooseMemory(close, { resetUserPassword: 3008 })).toEqual({ resetUserPassword: 1024 });
    expect(chooseMemory(close, { resetUserPassword: 512 })).toEqual({ resetUserPassword: 1024 });
  });
});
