/**
 * `npm run client:types`: writes the client's types (`packages/client/src/generated/openapi.ts`) from `openapi.json`
 * with openapi-typescript; `--check` fails when the committed file is stale. The client is typed from
 * the published contract, never from the service's code, so the two cannot drift unnoticed:
 * `test/unit/client-types.test.ts` runs the same generation and compares.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

export const CLIENT_TYPES_PATH = fileURLToPath(new URL('../packages/client/src/generated/openapi.ts', import.meta.url));
const OPENAPI_JSON = new URL('../openapi.json', import.meta.url);

/** The generated file's text for the `openapi.json` on disk. */
export async function generateClientTypes(): Promise<string> {
  const ast = await openapiTS(JSON.parse(readFileSync(OPENAPI_JSON, 'utf8')) as Parameters<typeof openapiTS>[0]);
  return `${COMMENT_HEADER}// From openapi.json by \`npm run client:types\`; test/unit/client-types.test.ts fails while it is stale.\n\n${astToString(ast)}`;
}

async function main(args: readonly string[]): Promise<void> {
  const text = await generateClientTypes();
  if (args.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
    } catch {
      // A missing file is stale too.
    }
    if (committed !== text) {
      console.error('packages/client/src/generated/openapi.ts is stale: run npm run client:types');
      process.exit(1);
    }
    console.log('packages/client/src/generated/openapi.ts is up to date');
    return;
  }
  writeFileSync(CLIENT_TYPES_PATH, text);
  console.log(`Wrote packages/client/src/generated/openapi.ts (${Buffer.byteLength(text)} bytes)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
