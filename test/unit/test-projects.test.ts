/**
 * The test projects as jest.config.js defines them: CONTRIBUTING's table of the heavy files is
 * written from HEAVY (codegen/test-projects.ts), each heavy file exists and is left out of the
 * default run, and `.ci/run` names every project that runs only when named.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { jestProjects, readContributing, withHeavyBlock } from '../../codegen/test-projects';

const ROOT = join(import.meta.dirname, '../..');

it("CONTRIBUTING's table of heavy files is the one HEAVY in jest.config.js gives (npm run test:projects -- --write)", async () => {
  const { HEAVY } = await jestProjects(ROOT);
  const contributing = readContributing(ROOT);
  expect(withHeavyBlock(contributing, HEAVY)).toBe(contributing);
  // A file added to the list, and the table no longer matches.
  expect(withHeavyBlock(contributing, { ...HEAVY, 'test/unit/x.test.ts': { why: 'w', after: 'a' } })).not.toBe(contributing);
});

it('every heavy file exists', async () => {
  const { HEAVY } = await jestProjects(ROOT);
  const files = Object.keys(HEAVY);
  expect(files.length).toBeGreaterThan(0);
  expect(files.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
});

it('.ci/run names every project, the ones that run only when named included', async () => {
  const { NAMED_PROJECTS } = await jestProjects(ROOT);
  const named = readFileSync(join(ROOT, '.ci/run'), 'utf8')
    .split('\n')
    .filter((line) => /^\s*npm test -- --selectProjects /.test(line))
    .flatMap((line) =>
      line
        .replace(/^\s*npm test -- --selectProjects /, '')
        .split(/\s+--/)[0]!
        .split(/\s+/),
    );
  expect(NAMED_PROJECTS.filter((project) => !named.includes(project))).toEqual([]);
  const { default: config } = (await import(join(ROOT, 'jest.config.js'))) as { default: { projects: { displayName: string }[] } };
  const always = config.projects.map((project) => project.displayName).filter((project) => !NAMED_PROJECTS.includes(project));
  expect(always.length).toBeGreaterThan(0);
  expect(always.filter((project) => !named.includes(project))).toEqual([]);
});
