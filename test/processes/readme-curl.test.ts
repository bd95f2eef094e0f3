/**
 * README.md's Quick start is a test: every `curl` command in its bash blocks is
 * run with real curl against the local server, as a fresh owner (API_KEY), in
 * order, and must print exactly the `# {...}` line that follows it.
 */

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { OPERATIONS } from '#contract/operations';
import { newOwner, startLocalServer } from '../support/local';

/** Where the README's commands point: `npm start`'s address. */
// Each case runs several curl processes one after another: jest's 5 s default is a hang guard too
// tight for two shared cores (seen failing under load), not a speed target.
jest.setTimeout(60_000);

const README_BASE_URL = 'http://127.0.0.1:3000';

interface CurlExample {
  readonly command: string;
  readonly expected: string;
}

/** The curl commands of a README section's bash blocks, each with the output comment that follows it. */
function curlExamples(markdown: string, section: string): CurlExample[] {
  const start = markdown.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${section}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  const text = markdown.slice(start, end < 0 ? undefined : end);
  const blocks = [...text.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  const examples: CurlExample[] = [];
  for (const block of blocks) {
    // One logical line per command: backslash continuations joined.
    const lines = block.replace(/\\\n\s*/g, '').split('\n');
    lines.forEach((line, i) => {
      if (!line.startsWith('curl ')) return;
      const comment = lines[i + 1] ?? '';
      if (!comment.startsWith('# ')) throw new Error(`No "# <output>" line after: ${line}`);
      examples.push({ command: line, expected: comment.slice(2) });
    });
  }
  return examples;
}

const run = promisify(execFile);
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const examples = curlExamples(README, 'Quick start');
const idempotencyExamples = curlExamples(README, 'Retry-safe calls: Idempotency-Key');

let server: Awaited<ReturnType<typeof startLocalServer>>;
let apiKey: string;

beforeAll(async () => {
  server = await startLocalServer();
  ({ apiKey } = await newOwner('readme'));
});
afterAll(async () => server.close());

describe('README.md Quick start', () => {
  it('has every operation as a curl example, in route order', () => {
    expect(examples.map((e) => /\/v1\/(\w+)/.exec(e.command)?.[1])).toEqual([...OPERATIONS]);
  });

  // In order: each step works on the user the previous one created.
  it('prints, for each curl command run as written, the output the README shows', async () => {
    await runInOrder(examples);
  });
});

describe('README.md Retry-safe calls: Idempotency-Key', () => {
  it('has a first use, its replay and a reused key', () => {
    expect(idempotencyExamples).toHaveLength(3);
  });

  it('prints, for each curl command run as written, the output the README shows', async () => {
    await runInOrder(idempotencyExamples);
  });
});

/** Runs the commands in order (each step works on what the previous one did), as the README's reader would. */
async function runInOrder(commands: readonly CurlExample[]): Promise<void> {
  for (const { command, expected } of commands) {
    const { stdout } = await run('bash', ['-c', command.replaceAll(README_BASE_URL, server.baseUrl)], {
      env: { PATH: process.env.PATH, API_KEY: apiKey },
      timeout: 10_000,
    });
    expect({ command, output: stdout }).toEqual({ command, output: expected });
  }
}
