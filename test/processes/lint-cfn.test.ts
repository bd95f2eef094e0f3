/**
 * `npm run lint:cfn` (scripts/lint-cfn.ts) fails on what cfn-lint finds in a template, except the
 * findings it accepts by rule, place and message: shown on a copy of prod's synthesized template,
 * as it is and with a fault injected. Needs cfn-lint on the PATH (`.ci/run` refuses to run without it).
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPERATIONS } from '#contract/operations';
import { baseStage } from '../infra/templates';
import { runScript } from '../support/processes';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;
interface TemplateJson {
  Resources: Resources;
  Rules: Record<string, unknown>;
}

let dir: string;
let synthesized: TemplateJson;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lint-cfn-'));
  synthesized = baseStage('prod').template.toJSON() as TemplateJson;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a copy of prod's template, changed by `edit`, and lints it. */
async function lintCopy(name: string, edit: (template: TemplateJson) => void = () => undefined) {
  const template = structuredClone(synthesized);
  edit(template);
  const file = join(dir, `${name}.template.json`);
  writeFileSync(file, JSON.stringify(template, null, 1));
  return runScript('scripts/lint-cfn.ts', [file], process.env);
}

const idOf = (template: TemplateJson, type: string) => Object.entries(template.Resources).find(([, r]) => r.Type === type)![0];

/** Prod's functions (each operation's and the stream consumer) and the pre-traffic hook of each. */
const FUNCTIONS_WITH_HOOKS = 2 * (OPERATIONS.length + 1);

describe('npm run lint:cfn on a copy of the prod template', () => {
  it('as synthesized: only the accepted findings, each with its reason; exit 0', async () => {
    const run = await lintCopy('as-synthesized');
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^accepted E3002 x1: `Tags` on the AWS::CloudWatch::Dashboard/m);
    // One per function: every operation's and the stream consumer's, and prod's pre-traffic hook of each.
    expect(run.stdout).toMatch(
      new RegExp(`^accepted W3005 x${FUNCTIONS_WITH_HOOKS}: a Lambda function's DependsOn entry for its own execution role`, 'm'),
    );
    expect(run.stdout).toMatch(/^accepted W8003 x1: the assertion of the rule AlarmsHaveASubscriber/m);
    expect(run.stdout).toMatch(
      new RegExp(
        `^cfn-lint \\d+\\.\\d+\\.\\d+ on as-synthesized\\.template\\.json: ${FUNCTIONS_WITH_HOOKS + 2} finding\\(s\\), 0 not accepted$`,
        'm',
      ),
    );
  }, 120_000);

  it('faults injected: each fails, named by its rule, message and place; the accepted ones stay as narrow as stated', async () => {
    const run = await lintCopy('injected', (template) => {
      // An invalid property on a table.
      template.Resources[idOf(template, 'AWS::DynamoDB::Table')]!.Properties.NotAProperty = true;
      // The dashboard's acceptance covers Tags only.
      template.Resources[idOf(template, 'AWS::CloudWatch::Dashboard')]!.Properties.Colour = 'blue';
      // The always-false acceptance covers AlarmsHaveASubscriber only.
      template.Rules.AnotherRule = template.Rules.AlarmsHaveASubscriber;
    });
    expect(run.code).toBe(1);
    const refused = run.stderr.trim().split('\n');
    expect(refused).toEqual([
      expect.stringMatching(
        /^injected\.template\.json:\d+ E3002 Additional properties are not allowed \('NotAProperty' was unexpected\) \(Resources\/TablesUsers\w+\/Properties\/NotAProperty\)$/,
      ),
      expect.stringMatching(
        /^injected\.template\.json:\d+ E3002 Additional properties are not allowed \('Colour' was unexpected\) \(Resources\/MonitoringDashboard\w+\/Properties\/Colour\)$/,
      ),
      expect.stringMatching(/^injected\.template\.json:\d+ W8003 .* will always return True or False \(Rules\/AnotherRule\//),
    ]);
    // The accepted findings of the synthesized template, and the three injected.
    expect(run.stdout).toMatch(
      new RegExp(
        `^cfn-lint \\d+\\.\\d+\\.\\d+ on injected\\.template\\.json: ${FUNCTIONS_WITH_HOOKS + 2 + 3} finding\\(s\\), 3 not accepted$`,
        'm',
      ),
    );
  }, 120_000);

  it('without cfn-lint on the PATH: one line saying so, exit 1', async () => {
    const file = join(dir, 'unused.template.json');
    writeFileSync(file, '{}');
    const run = await runScript('scripts/lint-cfn.ts', [file], { ...process.env, PATH: '/usr/bin:/bin' });
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      "cfn-lint (AWS's CloudFormation linter) is not installed: install it (pip install cfn-lint), then run npm run lint:cfn again.\n",
    ]);
  });
});
