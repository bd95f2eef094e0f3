/**
 * `npm run openapi`: writes `openapi.json` from codegen/openapi.ts;
 * `npm run openapi -- --check` fails when the committed file is stale.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { buildOpenApiDocument, OPENAPI_PATH, serializeOpenApiDocument } from '../codegen/openapi';

function main(args: readonly string[]): void {
  const text = serializeOpenApiDocument(buildOpenApiDocument());
  if (args.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(OPENAPI_PATH, 'utf8');
    } catch {
      // A missing file is stale too.
    }
    if (committed !== text) {
      console.error('openapi.json is stale: run npm run openapi');
      process.exit(1);
    }
    console.log(`openapi.json is up to date (${Buffer.byteLength(text)} bytes)`);
    return;
  }
  writeFileSync(OPENAPI_PATH, text);
  console.log(`Wrote openapi.json (${Buffer.byteLength(text)} bytes)`);
}

main(process.argv.slice(2));
