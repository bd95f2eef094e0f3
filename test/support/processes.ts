/** Runs the project's own entry points (tsx scripts) as child processes, on the pinned Node. */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = `${ROOT}node_modules/tsx/dist/cli.mjs`;

/** Runs a script to completion; resolves with its exit code and output. */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, `${ROOT}${script}`, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a long-running script; `waitFor` resolves with the output once it matches. */
export function startScript(script: string, env: NodeJS.ProcessEnv, cwd = ROOT) {
  const child: ChildProcess = spawn(process.execPath, [TSX, `${ROOT}${script}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    exited,
    output: () => output,
    async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`never printed ${pattern}; output:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
