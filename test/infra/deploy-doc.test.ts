/**
 * docs/deploy.md's commands, in the order the page gives them, against the app's synthesized
 * templates: bootstrap (with the execution policy derived from the templates) before any deploy, the
 * account stack before the stages, a bootstrap recent enough for the templates' version rule, and the
 * staging command's context accepted by the app, its alarm check met.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { Template as Assertions } from 'aws-cdk-lib/assertions';
import { BOUNDED_ROLE_ACTIONS, executionPolicy, resourceTypes, servicePrefix, UPCOMING_TYPES } from '../../codegen/execution-policy';
import { ACCOUNT_STACK_NAME } from '../../lib/account-stack';
import { buildApp } from '../../lib/app';
import { DEFAULT_PERMISSIONS_BOUNDARY, STAGES } from '../../lib/stage-config';

const ROOT = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/deploy.md', ROOT), 'utf8');

/** Every command of the page's `sh` blocks, in order, continuation lines joined, comments dropped. */
function commandsOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

/** A `npm run cdk -- <verb> <stack> -c k=v ...` command read apart. */
function cdkCommand(line: string) {
  const words = line.replace(/^npm run cdk -- /, '').split(/\s+/);
  const context: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '-c') {
      const [key, ...value] = words[i + 1]!.split('=');
      context[key!] = value.join('=');
    }
  }
  return { verb: words[0]!, target: words[1], context };
}

const commands = commandsOf(doc);
const cdk = commands.filter((line) => line.startsWith('npm run cdk -- ')).map((line) => ({ line, ...cdkCommand(line) }));
const firstIndex = (test: (line: string) => boolean) => commands.findIndex(test);

type Template = { Resources?: Record<string, { Type: string }>; Rules?: Record<string, unknown>; Parameters?: Record<string, unknown> };
let templates: Record<string, Template>;
beforeAll(() => {
  const { app } = buildApp({ context: { stage: STAGES.join(','), 'aws:cdk:bundling-stacks': [] } });
  const assembly = app.synth();
  templates = Object.fromEntries(
    app.node.children
      .filter(Stack.isStack)
      .map((stack) => [stack.stackName, assembly.getStackByName(stack.stackName).template as Template]),
  );
}, 120_000);

describe('the order from an empty account', () => {
  it('synth, the execution policy from its templates, the policy created, then bootstrap with it, before any deploy', () => {
    const synth = firstIndex((l) => l.startsWith('npm run synth -- -c stage=dev,staging,prod'));
    const policy = firstIndex((l) => l.startsWith('npm run -s execution-policy -- --out execution-policy.json'));
    const created = firstIndex((l) => l.startsWith('aws iam create-policy ') && l.includes('file://execution-policy.json'));
    const bootstrap = firstIndex((l) => l.startsWith('npm run cdk -- bootstrap'));
    const deploy = firstIndex((l) => l.startsWith('npm run cdk -- deploy'));
    expect([synth, policy, created, bootstrap].every((i) => i >= 0)).toBe(true);
    expect(synth).toBeLessThan(policy);
    expect(policy).toBeLessThan(created);
    expect(created).toBeLessThan(bootstrap);
    expect(bootstrap).toBeLessThan(deploy);
    expect(commands[bootstrap]).toContain('--cloudformation-execution-policies');
    expect(commands[bootstrap]).toContain('policy/UserManagementCfnExecution');
    // The boundary the CLI creates with --example-permissions-boundary (cdk-<qualifier>-permissions-boundary)
    // is the one every role of the stacks names by default.
    expect(commands[bootstrap]).toContain('--example-permissions-boundary');
    const cli = readFileSync(new URL('node_modules/aws-cdk/lib/index.js', ROOT), 'utf8');
    // The CLI's own line, read as text: `cdk-${qualifier}-permissions-boundary`, with the default qualifier.
    const name = /let policyName = `cdk-\$\{qualifier\}(-permissions-boundary)`;/.exec(cli)?.[1];
    expect(`cdk-hnb659fds${name}`).toBe(DEFAULT_PERMISSIONS_BOUNDARY);
  });

  it('the quota check with Service Quotas comes before any deploy', () => {
    const quota = firstIndex((l) => l.startsWith('aws service-quotas list-service-quotas --service-code lambda'));
    expect(quota).toBeGreaterThanOrEqual(0);
    expect(quota).toBeLessThan(firstIndex((l) => l.startsWith('npm run cdk -- deploy')));
  });

  it('the account stack is deployed before every stage, and every deployed stack is one the app holds', () => {
    const deploys = cdk.filter((c) => c.verb === 'deploy');
    expect(deploys[0]?.target).toBe(ACCOUNT_STACK_NAME);
    for (const d of deploys) expect(Object.keys(templates).concat(STAGES.map((s) => `UserManagement-${s}`))).toContain(d.target);
  });
});

describe('bootstrap', () => {
  it("the pinned CLI's bootstrap version is one the templates' CheckBootstrapVersion rule accepts", () => {
    const yaml = readFileSync(new URL('node_modules/aws-cdk/lib/api/bootstrap/bootstrap-template.yaml', ROOT), 'utf8');
    const version = /CdkBootstrapVersion:\n\s+Type: AWS::SSM::Parameter[\s\S]*?Value: '(\d+)'/.exec(yaml)?.[1];
    expect(version).toBeDefined();
    for (const [name, template] of Object.entries(templates)) {
      const rule = JSON.stringify(template.Rules?.CheckBootstrapVersion ?? {});
      const refused = JSON.parse(/"Fn::Contains":\[(\[[^\]]*\])/.exec(rule)?.[1] ?? 'null') as string[] | null;
      expect([name, Array.isArray(refused)]).toEqual([name, true]);
      expect(refused).not.toContain(version);
      expect(template.Parameters?.BootstrapVersion).toBeDefined();
    }
  });

  it("the execution policy covers the service of every resource type the templates create, and CodeDeploy's; IAM's only with the boundary", () => {
    const types = resourceTypes(Object.values(templates));
    const policy = executionPolicy(types, DEFAULT_PERMISSIONS_BOUNDARY);
    const actions = policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action);
    for (const type of [...types, ...UPCOMING_TYPES]) {
      const service = servicePrefix(type);
      if (service && service !== 'iam') expect([type, actions]).toEqual([type, expect.arrayContaining([`${service}:*`])]);
    }
    expect(actions).toContain('codedeploy:*');
    // The templates create roles: IAM's actions are granted one by one, each role created only with the boundary
    // (test/infra/permissions-boundary.test.ts evaluates them).
    expect(types).toContain('AWS::IAM::Role');
    expect(actions).toEqual(expect.arrayContaining([...BOUNDED_ROLE_ACTIONS, 'iam:PassRole']));
    expect(actions).not.toContain('iam:*');
    expect(actions).not.toContain('*');
  });
});

describe('the staging command', () => {
  const staging = () => cdk.filter((c) => c.verb === 'deploy' && c.target === 'UserManagement-staging');

  it("runs as written: the app accepts its context, and its alarms have a subscriber, so CloudFormation's refusal rule is absent", () => {
    expect(staging().length).toBeGreaterThan(0);
    for (const command of staging()) {
      const { stages } = buildApp({ context: { ...command.context, 'aws:cdk:bundling-stacks': [] } });
      const stack = stages.staging!;
      const rules = Object.keys(Assertions.fromStack(stack).toJSON().Rules ?? {});
      expect(rules).not.toContain('AlarmsHaveASubscriber');
    }
  });

  it('without its alarm address the same command would be refused at deploy (the rule the context removes)', () => {
    const { alarmEmail: _dropped, ...rest } = staging()[0]!.context;
    const { stages } = buildApp({ context: { ...rest, 'aws:cdk:bundling-stacks': [] } });
    expect(Object.keys(Assertions.fromStack(stages.staging!).toJSON().Rules ?? {})).toContain('AlarmsHaveASubscriber');
  });
});

describe('a rollback by hand that the next deploy survives', () => {
  // Every Markdown file of the repository (node_modules and build output aside).
  const markdownFiles = execFileSync('git', ['ls-files', '*.md', '**/*.md'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

  it('no Markdown file moves a live alias with update-alias (CodeDeploy manages it; CloudFormation would go stale)', () => {
    expect(markdownFiles.length).toBeGreaterThan(10);
    const offending = markdownFiles.filter((file) => /update-alias/.test(readFileSync(new URL(file, ROOT), 'utf8')));
    expect(offending).toEqual([]);
  });

  it('the guide rolls back through CodeDeploy (stop with rollback) or by deploying the previous commit', () => {
    expect(commands).toContain('aws deploy stop-deployment --deployment-id d-XXXXXXXXX --auto-rollback-enabled');
    expect(doc).toMatch(/deploy the previous commit/);
  });
});
