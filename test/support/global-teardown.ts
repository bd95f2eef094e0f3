import type { ChildProcess } from 'node:child_process';

export default async function globalTeardown(): Promise<void> {
  (globalThis as { dynamodbLocal?: ChildProcess }).dynamodbLocal?.kill();
}
