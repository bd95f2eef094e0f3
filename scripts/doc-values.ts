/**
 * `tsx scripts/doc-values.ts [--check]`: values a user document states inline, from the code: the text of
 * `<!-- value:apiKeyCacheTtl -->30 s<!-- /value -->` is rewritten; `--check` names each stale or unknown one.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECHOED_NAME_CODE_POINTS } from '#contract/messages';
import { BLOCKLIST_COUNTS } from '#domain/generated/blocklist';
import { DEFAULT_API_KEY_CACHE_TTL_SECONDS } from '#platform/config';
import { LANE_OVERHEAD_MIB } from '#sign-in/domain/costly-lane';
import { BCRYPT_MAX_BYTES } from '#sign-in/domain/sign-in';
import { FREE_FAILURES, UNTRUSTED_FAILURE_LIMIT } from '#sign-in/domain/sign-in-attempts';
import { SIGN_IN_MEMORY_BOUND_MIB } from '#sign-in/domain/sign-in-memory';
import * as devices from '#sign-in/domain/trusted-devices';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each value's text, by the name a document marks it with. */
export const VALUES: Readonly<Record<string, string>> = {
  apiKeyCacheTtl: `${DEFAULT_API_KEY_CACHE_TTL_SECONDS} s`,
  echoedName: `${ECHOED_NAME_CODE_POINTS} code points`,
  blocklistEntries: BLOCKLIST_COUNTS.sourceEntries.toLocaleString('en-US'),
  bcryptMaxBytes: `${BCRYPT_MAX_BYTES} bytes`,
  freeFailures: String(FREE_FAILURES),
  untrustedFailureLimit: String(UNTRUSTED_FAILURE_LIMIT),
  devicesPerUser: String(devices.MAX_DEVICES_PER_USER),
  deviceFailureLimit: String(devices.DEVICE_FAILURE_LIMIT),
  trustedFailuresAtMost: String(devices.TRUSTED_FAILURES_AT_MOST),
  deviceCookieDays: `${devices.DEVICE_COOKIE_DAYS} days`,
  cookiesPerBrowser: String(devices.DEVICE_COOKIES_PER_BROWSER),
  laneOverhead: `${LANE_OVERHEAD_MIB} MiB`,
  signInMemory: `${SIGN_IN_MEMORY_BOUND_MIB} MiB`,
  rotationGrace: `${devices.ROTATION_GRACE_SECONDS} s`,
};

const SPAN = /<!-- value:([A-Za-z0-9]+) -->(.*?)<!-- \/value -->/g;

/** The user documents: the README, CONTRIBUTING, docs/*.md, the packages' and examples' READMEs. */
export function userDocuments(root: string = ROOT): string[] {
  const names = (dir: string) => readdirSync(join(root, dir)).sort();
  return [
    'README.md',
    'CONTRIBUTING.md',
    ...names('docs').map((name) => `docs/${name}`),
    ...['packages', 'examples'].flatMap((dir) => names(dir).map((name) => `${dir}/${name}/README.md`)),
  ].filter((file) => file.endsWith('.md') && existsSync(join(root, file)));
}

/** A document with every value span rewritten, and a line per span that was stale or names no value. */
export function withValues(text: string, file: string, values = VALUES): { text: string; problems: string[] } {
  const problems: string[] = [];
  const next = text.replace(SPAN, (span, name: string, shown: string, at: number) => {
    const line = text.slice(0, at).split('\n').length;
    const value = values[name];
    if (value === undefined) problems.push(`${file}:${line}: no value named ${name}`);
    else if (value !== shown) problems.push(`${file}:${line}: ${name} is ${value}, the document says ${shown}`);
    return value === undefined ? span : `<!-- value:${name} -->${value}<!-- /value -->`;
  });
  return { text: next, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const problems: string[] = [];
  for (const file of userDocuments()) {
    const current = readFileSync(join(ROOT, file), 'utf8');
    const result = withValues(current, file);
    problems.push(...result.problems.filter((problem) => check || problem.includes('no value named')));
    if (!check && result.text !== current) writeFileSync(join(ROOT, file), result.text);
  }
  for (const problem of problems) process.stderr.write(`doc-values: ${problem}\n`);
  if (problems.length > 0) process.exitCode = 1;
}
