/**
 * `npm run execution-policy [-- --from cdk.out] [-- --out execution-policy.json] [-- --permissions-boundary <name>]`: the CloudFormation
 * execution policy for `cdk bootstrap`, derived from the resource types of every template in the
 * cloud assembly (run `npm run synth -- -c stage=dev,staging,prod` first), CodeDeploy's included
 * (codegen/execution-policy.ts), its roles only with the permissions boundary (--permissions-boundary,
 * by default the stages' default, lib/stage-config.ts). Prints the document, or writes it to --out.
 * docs/deploy.md uses it.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { executionPolicy, resourceTypes } from '../codegen/execution-policy';
import { DEFAULT_PERMISSIONS_BOUNDARY } from '../lib/stage-config';

function main(): number {
  const { values } = parseArgs({
    options: {
      from: { type: 'string', default: 'cdk.out' },
      out: { type: 'string' },
      'permissions-boundary': { type: 'string', default: DEFAULT_PERMISSIONS_BOUNDARY },
    },
    strict: true,
  });
  const dir = resolve(values.from);
  const files = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.template.json')) : [];
  if (files.length === 0) {
    console.error(`execution-policy: no templates in ${values.from}: run npm run synth -- -c stage=dev,staging,prod first`);
    return 2;
  }
  const templates = files.map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
  const document = `${JSON.stringify(executionPolicy(resourceTypes(templates), values['permissions-boundary']), null, 2)}\n`;
  if (values.out) writeFileSync(values.out, document);
  else process.stdout.write(document);
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(`execution-policy: ${(error as Error).message}`);
  process.exitCode = 2;
}
