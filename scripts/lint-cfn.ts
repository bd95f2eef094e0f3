/**
 * `npm run lint:cfn`: AWS's CloudFormation linter (cfn-lint) on every template the app deploys.
 *
 * - No arguments: synthesizes the account stack and the dev, staging and prod stages (the assets'
 *   npm installs prefer the cache, so no registry is needed once it is warm) into a temporary
 *   folder and lints the four templates; every accepted finding below must still be reported
 *   somewhere (an entry nothing matches any more is stale, and fails the check).
 * - Template paths: lints those only.
 *
 * Every finding, error, warning or informational, fails the check unless it is one of
 * {@link ACCEPTED}: each names its rule, exactly where it applies, and why. Exit 0 when nothing
 * else was found; 1 otherwise, or when cfn-lint is not installed (one line says so).
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One finding as `cfn-lint --format json` reports it. */
interface Finding {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
  readonly Filename: string;
  readonly Location: { readonly Start: { readonly LineNumber: number }; readonly Path: readonly (string | number)[] };
}

interface Template {
  readonly Resources?: Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>;
}

interface Accepted {
  readonly rule: string;
  /** Where it applies, in words (printed with each accepted finding). */
  readonly where: string;
  readonly reason: string;
  /** True for exactly the findings this entry accepts. */
  readonly matches: (finding: Finding, template: Template) => boolean;
}

const resourceOf = (finding: Finding, template: Template) =>
  finding.Location.Path[0] === 'Resources' ? template.Resources?.[String(finding.Location.Path[1])] : undefined;

/**
 * The findings that are not faults, each as narrow as it can be stated: one rule, one kind of
 * place, the exact message. Checked against AWS's current documentation (docs/deploy.md says where).
 */
const ACCEPTED: readonly Accepted[] = [
  {
    rule: 'E3002',
    where: '`Tags` on the AWS::CloudWatch::Dashboard (only that property: any other unknown one is still an error)',
    reason:
      "cfn-lint's bundled schema for AWS::CloudWatch::Dashboard predates the property; AWS's CloudFormation template reference lists " +
      'DashboardBody, DashboardName and Tags ("Tags" : [ Tag, ... ]), and CDK 2.276 writes the stack\'s tags there',
    matches: (finding, template) =>
      resourceOf(finding, template)?.Type === 'AWS::CloudWatch::Dashboard' &&
      finding.Location.Path.slice(2).join('/') === 'Properties/Tags' &&
      finding.Message === "Additional properties are not allowed ('Tags' was unexpected)",
  },
  {
    rule: 'W3005',
    where: "a Lambda function's DependsOn entry for its own execution role (read by the function's Role GetAtt)",
    reason:
      "CDK makes a function depend on its role's construct, which lists the role and its default policy in DependsOn; the role entry repeats the order the GetAtt already gives, and the policy entry, which no GetAtt covers, must stay (the function never runs before its permissions exist). Redundant, harmless, and CDK's to write",
    matches: (finding, template) => {
      const fn = resourceOf(finding, template);
      const [, roleId, fnId] =
        /^'([\w-]+)' dependency already enforced by a 'GetAtt' at 'Resources\/([\w-]+)\/Properties\/Role'$/.exec(finding.Message) ?? [];
      const role = (fn?.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
      return (
        fn?.Type === 'AWS::Lambda::Function' &&
        fnId === finding.Location.Path[1] &&
        finding.Location.Path[2] === 'DependsOn' &&
        role?.[0] === roleId
      );
    },
  },
  {
    rule: 'W8003',
    where: 'the assertion of the rule AlarmsHaveASubscriber (staging and prod without anyone receiving the alarms)',
    reason:
      "the rule is meant to be always false: CloudFormation checks rules before it changes anything, so a stage whose alarms reach no one refuses every deploy with the rule's message (lib/user-management-stack.ts)",
    matches: (finding) =>
      finding.Location.Path.slice(0, 2).join('/') === 'Rules/AlarmsHaveASubscriber' &&
      finding.Message === "[{'Ref': 'AWS::Region'}, {'Ref': 'AWS::Region'}] will always return True or False",
  },
];

function cfnLintVersion(): string | undefined {
  const run = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  return run.error ? undefined : run.stdout.trim();
}

/** The four templates `cdk synth` writes for the account stack and every stage, in a temporary folder. */
function synthesizeAll(outdir: string): string[] {
  const run = spawnSync(join(ROOT, 'node_modules/.bin/cdk'), ['synth', '--quiet', '-c', 'stage=dev,staging,prod', '-o', outdir], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, npm_config_prefer_offline: 'true' },
  });
  if (run.status !== 0) {
    process.stderr.write(run.stderr);
    throw new Error(`cdk synth failed (exit ${run.status ?? run.signal})`);
  }
  return readdirSync(outdir)
    .filter((file) => file.endsWith('.template.json'))
    .sort()
    .map((file) => join(outdir, file));
}

function lint(templates: readonly string[]): Finding[] {
  const run = spawnSync('cfn-lint', ['--format', 'json', '--', ...templates], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw run.error;
  try {
    return JSON.parse(run.stdout || '[]') as Finding[];
  } catch {
    throw new Error(`cfn-lint exited ${run.status} without a JSON report: ${(run.stderr || run.stdout).split('\n')[0]}`);
  }
}

function main(args: readonly string[]): number {
  const version = cfnLintVersion();
  if (!version) {
    console.error(
      "cfn-lint (AWS's CloudFormation linter) is not installed: install it (pip install cfn-lint), then run npm run lint:cfn again.",
    );
    return 1;
  }
  const outdir = args.length === 0 ? mkdtempSync(join(tmpdir(), 'lint-cfn-')) : undefined;
  try {
    const templates = outdir ? synthesizeAll(outdir) : [...args];
    const findings = lint(templates);
    const parsed = new Map(templates.map((file) => [basename(file), JSON.parse(readFileSync(file, 'utf8')) as Template]));
    const unexpected: string[] = [];
    const used = new Map<Accepted, number>();
    for (const finding of findings) {
      const template = parsed.get(basename(finding.Filename)) ?? {};
      const accepted = ACCEPTED.find((entry) => entry.rule === finding.Rule.Id && entry.matches(finding, template));
      if (accepted) used.set(accepted, (used.get(accepted) ?? 0) + 1);
      else {
        unexpected.push(
          `${basename(finding.Filename)}:${finding.Location.Start.LineNumber} ${finding.Rule.Id} ${finding.Message} (${finding.Location.Path.join('/')})`,
        );
      }
    }
    for (const [entry, count] of used) console.log(`accepted ${entry.rule} x${count}: ${entry.where}: ${entry.reason}`);
    // Against every template the app deploys, an entry that nothing matches any more has been fixed upstream: remove it.
    const stale = outdir ? ACCEPTED.filter((entry) => !used.has(entry)) : [];
    for (const entry of stale)
      unexpected.push(`${entry.rule} is accepted but no longer reported (${entry.where}): remove it from scripts/lint-cfn.ts`);
    for (const line of unexpected) console.error(line);
    const names = templates.map((file) => basename(file)).join(', ');
    console.log(`${version} on ${names}: ${findings.length} finding(s), ${unexpected.length} not accepted`);
    return unexpected.length === 0 ? 0 : 1;
  } finally {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message.split('\n')[0]);
  process.exitCode = 1;
}
