/**
 * `.ci/run`'s machine set-up (`--setup-only`), with stand-ins first on the PATH for the commands
 * that would change the machine or tell who runs it (`apt-get`, `sudo`, `id`) and for an old Java:
 * a Java 11 is passed over for a Java 17+ the machine has, or refused in one line when it has none;
 * apt-get failing, or not allowed (no root), ends with the closing "0 passed, 1 failed"; so does a
 * missing cfn-lint. Nothing here installs anything.
 */

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { ROOT } from '../support/processes';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-run-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
/** Where cfn-lint is on these machines (a pyenv shim). */
const CFN_LINT_DIR = '/root/.pyenv/shims';

/** A folder of stand-in commands (name → shell script body), first on the PATH. */
function standIns(name: string, scripts: Record<string, string>): string {
  const bin = join(dir, name);
  spawnSync('mkdir', ['-p', bin]);
  for (const [command, body] of Object.entries(scripts)) {
    writeFileSync(join(bin, command), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, command), 0o755);
  }
  return bin;
}

const JAVA_11 = `echo 'openjdk version "11.0.22" 2024-01-16' >&2`;
/** apt-get that only notes what it was asked, and answers APT_EXIT. */
const APT_GET = 'echo "$*" >> "$APT_LOG"; exit "$APT_EXIT"';

function setup(bin: string, env: Record<string, string> = {}, withCfnLint = true) {
  const aptLog = join(bin, 'apt.log');
  const run = spawnSync('/bin/bash', ['.ci/run', '--setup-only'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      HOME: process.env.HOME ?? '/root',
      PATH: [bin, ...(withCfnLint ? [CFN_LINT_DIR] : []), SYSTEM_PATH].join(':'),
      APT_LOG: aptLog,
      APT_EXIT: '0',
      ...env,
    },
  });
  const apt = existsSync(aptLog) ? readFileSync(aptLog, 'utf8').trim().split('\n') : [];
  return { code: run.status, lines: `${run.stdout}${run.stderr}`.trim().split('\n'), apt };
}

/** What .ci/run would install on this machine besides Java (each is missing here or not). */
const missingTools = ['curl', 'chromium', 'qemu-aarch64-static'].filter(
  (tool) => spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env: { PATH: SYSTEM_PATH } }).status !== 0,
);

it('a Java 11 first on the PATH: the Java 17+ the machine has goes ahead of it, and the set-up passes', () => {
  if (!existsSync(join(CFN_LINT_DIR, 'cfn-lint'))) throw new Error(`No cfn-lint in ${CFN_LINT_DIR}: this test runs it`);
  const bin = standIns('java-11-first', { java: JAVA_11, 'apt-get': APT_GET });
  const { code, lines, apt } = setup(bin);
  expect(lines).toContainEqual(
    expect.stringMatching(new RegExp(`^Using Java (1[7-9]|[2-9][0-9]) at /\\S+/bin/java, ahead of ${bin}/java on the PATH$`)),
  );
  expect(lines.at(-1)).toMatch(/^Ready: Java (1[7-9]|[2-9][0-9]), curl, Chromium, qemu-user and cfn-lint \d+\.\d+\.\d+ checked$/);
  expect(code).toBe(0);
  // Only what this machine lacks was asked of apt-get (never Java: one was found).
  expect(apt.filter((line) => line.startsWith('install'))).toEqual(
    missingTools.map((tool) =>
      expect.stringContaining({ curl: 'curl', chromium: 'chromium', 'qemu-aarch64-static': 'qemu-user-static' }[tool]!),
    ),
  );
});

it('only a Java 11, and no root to install another: refused in one line, then "0 passed, 1 failed", apt-get never run', () => {
  const bin = standIns('java-11-no-root', {
    java: JAVA_11,
    'update-alternatives': 'true',
    id: 'if [ "$1" = "-u" ]; then echo 1000; else exec /usr/bin/id "$@"; fi',
    sudo: 'exit 1',
    'apt-get': APT_GET,
  });
  const { code, lines, apt } = setup(bin);
  expect(lines).toEqual([
    `Java 17 or later is needed (DynamoDB Local); found only Java 11 at ${bin}/java: installing default-jre-headless`,
    'Cannot install default-jre-headless: apt-get needs root (run .ci/run as root, or install default-jre-headless first)',
    'No Java 17 or later: install one (Debian: apt-get install default-jre-headless) and put it first on the PATH',
    '0 passed, 1 failed',
  ]);
  expect([code, apt]).toEqual([1, []]);
});

it('no Java at all, and apt-get failing: the reason, then "0 passed, 1 failed"', () => {
  const bin = standIns('no-java-apt-fails', { java: 'exit 127', 'update-alternatives': 'true', 'apt-get': APT_GET });
  // A `java` that cannot even say its version is no Java 17.
  const { code, lines, apt } = setup(bin, { APT_EXIT: '100' });
  expect(lines.slice(-3)).toEqual([
    'apt-get update failed, so default-jre-headless cannot be installed',
    'No Java 17 or later: install one (Debian: apt-get install default-jre-headless) and put it first on the PATH',
    '0 passed, 1 failed',
  ]);
  expect([code, apt]).toEqual([1, ['update -qq']]);
});

it('no cfn-lint: says so, then "0 passed, 1 failed"', () => {
  const bin = standIns('no-cfn-lint', { 'apt-get': APT_GET });
  const { code, lines } = setup(bin, {}, false);
  expect(lines.slice(-2)).toEqual([
    "cfn-lint (AWS's CloudFormation linter) is not installed, and CI lints every template with it: pip install cfn-lint, then run .ci/run again",
    '0 passed, 1 failed',
  ]);
  expect(code).toBe(1);
});
