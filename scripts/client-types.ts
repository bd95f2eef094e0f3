/**
 * `npm run client:types`: writes the client's types (`packages/client/src/generated/openapi.ts`) from `openapi.json`
 * with openapi-typescript; `--check` fails when the committed file is stale. The client is typed from
 * the published contract, never from the service's code, so the two cannot drift unnoticed:
 * `test/unit/client-types.test.ts` runs the same generation and compares.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

export const CLIENT_TYPES_PATH = fileURLToPath(new URL('../packages/client/src/generated/openapi.ts', import.meta.url));
/** The client's run-time list of operations and of the refusals each can answer, from the same document. */
export const CLIENT_OPERATIONS_PATH = fileURLToPath(new URL('../packages/client/src/generated/operations.ts', import.meta.url));
const OPENAPI_JSON = new URL('../openapi.json', import.meta.url);

/** Statuses the client never returns as a refusal: the success, and what it retries. */
const NOT_REFUSALS = new Set(['200', '429', '500']);

/** The generated operations file's text: each operation of `openapi.json` and its documented refusals. */
export function generateClientOperations(): string {
  const document = JSON.parse(readFileSync(OPENAPI_JSON, 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  };
  const refusals = Object.values(document.paths)
    .flatMap((methods) => Object.values(methods))
    .map(
      (operation) =>
        [
          operation.operationId,
          Object.keys(operation.responses)
            .filter((status) => !NOT_REFUSALS.has(status))
            .map(Number),
        ] as const,
    );
  return [
    '// From openapi.json by `npm run client:types`; test/unit/client-types.test.ts fails while it is stale.',
    '',
    "/** The operations, in the document's order. */",
    `export const OPERATION_NAMES = [${refusals.map(([name]) => `'${name}'`).join(', ')}] as const;`,
    '',
    '/** The refusals each operation can answer (every documented status but 200, and 429 and 500, which are retried). */',
    'export const REFUSALS = {',
    ...refusals.map(([name, statuses]) => `  ${name}: [${statuses.join(', ')}],`),
    '} as const;',
    '',
  ].join('\n');
}

/** The generated file's text for the `openapi.json` on disk. */
export async function generateClientTypes(): Promise<string> {
  const ast = await openapiTS(JSON.parse(readFileSync(OPENAPI_JSON, 'utf8')) as Parameters<typeof openapiTS>[0]);
  return `${COMMENT_HEADER}// From openapi.json by \`npm run client:types\`; test/unit/client-types.test.ts fails while it is stale.\n\n${astToString(ast)}`;
}

async function main(args: readonly string[]): Promise<void> {
  const files = [
    [CLIENT_TYPES_PATH, await generateClientTypes()],
    [CLIENT_OPERATIONS_PATH, generateClientOperations()],
  ] as const;
  for (const [path, text] of files) {
    const name = relative(fileURLToPath(new URL('..', import.meta.url)), path);
    if (args.includes('--check')) {
      let committed = '';
      try {
        committed = readFileSync(path, 'utf8');
      } catch {
        // A missing file is stale too.
      }
      if (committed !== text) {
        console.error(`${name} is stale: run npm run client:types`);
        process.exit(1);
      }
      console.log(`${name} is up to date`);
    } else {
      writeFileSync(path, text);
      console.log(`Wrote ${name} (${Buffer.byteLength(text)} bytes)`);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
