/**
 * The DynamoDB the running `npm start` uses, read from the sign-in descriptor it writes
 * (`.data/sign-in.json`, its `endpoint`), so that `npm start` on another DYNAMODB_PORT needs no
 * second telling. Used only when nothing names an engine or a table: DYNAMODB_ENDPOINT,
 * DYNAMODB_PORT, a `--…-table` option or a `…_TABLE_NAME` variable keep their meaning.
 */

import { readFileSync } from 'node:fs';

/** The file `npm start` writes in the folder it runs in (local/start.ts, DESCRIPTOR_FILE). */
export const NPM_START_DESCRIPTOR = '.data/sign-in.json';

/** Where the endpoint the CLI uses came from, for the one-line error when it does not answer. */
export let discoveredFrom: string | undefined;

/**
 * Sets DYNAMODB_ENDPOINT to npm start's engine when the command line and environment name none;
 * a missing or unreadable descriptor leaves the default (port 8000).
 */
export function useNpmStartEngine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): void {
  if (env.DYNAMODB_ENDPOINT || env.DYNAMODB_PORT) return;
  if (argv.some((arg) => /^--[a-z-]+-table(=|$)/.test(arg))) return;
  if (Object.keys(env).some((name) => name.endsWith('_TABLE_NAME') && env[name])) return;
  let endpoint: unknown;
  try {
    endpoint = (JSON.parse(readFileSync(NPM_START_DESCRIPTOR, 'utf8')) as { endpoint?: unknown }).endpoint;
  } catch {
    return;
  }
  if (typeof endpoint !== 'string' || !/^https?:\/\/[^\s]+$/.test(endpoint)) return;
  env.DYNAMODB_ENDPOINT = endpoint;
  discoveredFrom = NPM_START_DESCRIPTOR;
}
