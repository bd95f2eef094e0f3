/** Runs the project's own entry points (tsx scripts) as child processes, on the pinned Node. */

import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor as poll } from './poll';

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

const startedScripts = new Set<ChildProcess>();

/** Kills what {@link startScript} started and is still running, with its descendants (for afterEach). */
export function killStartedScripts(): void {
  for (const child of startedScripts) if (child.exitCode === null && child.signalCode === null) killTree(child.pid);
  startedScripts.clear();
}

/** Starts a long-running script; `waitFor` resolves with the output once it matches. */
export function startScript(script: string, env: NodeJS.ProcessEnv, cwd = ROOT) {
  return startProcess(process.execPath, [TSX, `${ROOT}${script}`], env, cwd);
}

/**
 * Runs `npm start` itself (npm, then tsx, then the script) in `dir`, a folder that links to the
 * project's files (see {@link linkProject}) so that its `.data` is the test's own. Detached: npm
 * leads a process group of its own, as in a terminal.
 */
export function startNpmStart(env: NodeJS.ProcessEnv, dir: string) {
  return startProcess('npm', ['start'], env, dir, { detached: true });
}

/**
 * Runs a documented long-running command line (`npm start`, `... npm start`) with bash in `dir`,
 * detached as {@link startNpmStart}: stop it with a signal to its process group, or {@link killStartedScripts}.
 */
export function startShellCommand(line: string, env: NodeJS.ProcessEnv, dir: string) {
  return startProcess('bash', ['-c', line], env, dir, { detached: true });
}

/** Fills `dir` with links to everything at the project's root but its data and git folders. */
export function linkProject(dir: string): void {
  for (const name of readdirSync(ROOT)) if (!['.data', '.git'].includes(name)) symlinkSync(join(ROOT, name), join(dir, name));
}

function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, options: { detached?: boolean } = {}) {
  const child: ChildProcess = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  startedScripts.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    exited,
    output: () => output,
    async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
      const printed = () => {
        const match = output.match(pattern);
        if (match === null && child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
        return match ?? undefined;
      };
      try {
        return (await poll(printed, timeoutMs, `${pattern}`)).value;
      } catch (error) {
        throw new Error(`never printed ${pattern} (${(error as Error).message}); output:\n${output}`);
      }
    },
  };
}

/** The pids of the live processes whose parent is `pid` (Linux /proc). */
export function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // The command name sits in parentheses and may hold spaces; the parent pid is the second field after it.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Every live descendant of `pid` (children, their children, ...): `npm start` under tsx is node -> node -> java. */
export function descendantPids(pid: number): number[] {
  const children = childPids(pid);
  return [...children, ...children.flatMap(descendantPids)];
}

/** SIGKILLs `pid` and all its descendants: a test's last resort, so that a failure leaves nothing running. */
export function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const target of [...descendantPids(pid), pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Whether a process with this pid exists (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The local addresses listening on TCP `port` (Linux /proc/net/tcp and tcp6), as dotted IPv4
 * (IPv4-mapped IPv6 included) or `::`-style IPv6: `0.0.0.0` or `::` means every interface.
 */
export function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const ipv4 = (hex: string) => [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  const addresses: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [address, localPort] = local!.split(':');
      if (state !== '0A' || localPort !== hexPort) continue;
      if (address!.length === 8) addresses.push(ipv4(address!));
      else if (address!.startsWith('0000000000000000FFFF0000')) addresses.push(ipv4(address!.slice(24)));
      else addresses.push(/^0+$/.test(address!) ? '::' : address!);
    }
  }
  return addresses;
}

/** A process's command line, arguments joined by spaces ('' once it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
