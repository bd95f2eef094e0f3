// Jest runs in native ESM mode (middy 7 is ESM-only); swc strips the types.
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } }],
};
// A relative import written with `.js` (as Node's ESM wants, in the client package) finds its `.ts` source.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
const common = { transform, moduleNameMapper, extensionsToTreatAsEsm: ['.ts'], testEnvironment: 'node' };

/**
 * The arm64 project (each Lambda asset run on arm64 Node under qemu: a few minutes) and the slow
 * project (imports of 10,000 and 100,000 users, measuring memory) run only when named:
 * `npm test -- --selectProjects arm64` (`.ci/run` runs it with the others) and
 * `--selectProjects slow` (`.ci/run` runs it alone, after the others: it loads the shared engine
 * and both cores). The default `npm test` stays fast.
 */
const arm64Selected = process.argv.includes('arm64');
const slowSelected = process.argv.includes('slow');
/**
 * The processes project (the admin CLI, npm start, the docs page in Chromium, synth and the built
 * packages as real child processes: minutes of spawning) runs when named, or when one of its files
 * is: `npm test -- --selectProjects processes` (`.ci/run` runs it with the others).
 */
const processesSelected = process.argv.some((arg) => arg === 'processes' || arg.includes('test/processes/'));
/**
 * The heavy project: the default projects' files that take longest (argon2 at its real cost many
 * times over, long request loops, the CDK stack synthesized stage after stage), each with why. They
 * keep their folders, and run when named (`npm test -- --selectProjects heavy`; `.ci/run` names it),
 * or when a file of theirs or a folder above one is named (`npm test -- test/infra` runs every infra
 * file). CONTRIBUTING's "Tests" lists them from here (`npm run test:projects -- --write`).
 */
export const HEAVY = {
  'test/integration/sign-in.test.ts': { why: 'argon2id at its real cost, attempt after attempt', after: 'the sign-in rules or its store' },
  'test/hardening/soak.test.ts': { why: 'a long loop of requests', after: 'a handler, the pipeline, a middleware or a store' },
  'test/hardening/secrets.test.ts': {
    why: 'every operation and sign-in, the logs searched for the secrets sent',
    after: 'a handler, the pipeline, the logger, the sign-in',
  },
  'test/infra/password-check.test.ts': { why: 'the stack synthesized with each password-check setting', after: 'the stack (`lib/`)' },
  'test/infra/capacity-stack.test.ts': {
    why: 'every stage synthesized, against the capacity model',
    after: 'the stack, the capacity model',
  },
  'test/infra/deploy.test.ts': { why: 'every stage synthesized', after: 'the stack (`lib/`)' },
  'test/infra/access-log.test.ts': { why: 'every stage synthesized', after: 'the stack (`lib/`)' },
  'test/infra/deploy-doc.test.ts': { why: 'every stage synthesized, against `docs/deploy.md`', after: 'the stack, `docs/deploy.md`' },
  'test/infra/stateful-resources.test.ts': { why: 'every stage synthesized, against its record', after: 'the stack, a table' },
  'test/unit/layers.test.ts': {
    why: 'dependency-cruiser over the whole tree, once per injected violation',
    after: 'an import across layers, `.dependency-cruiser.cjs`',
  },
};
/** A command-line argument as a path below the project ('./test/infra/' → 'test/infra/'). */
const asPath = (arg) => arg.replace(/^\.\//, '').replace(`${process.cwd()}/`, '');
const heavySelected = process.argv.some(
  (arg) =>
    arg === 'heavy' ||
    (!arg.startsWith('-') &&
      Object.keys(HEAVY).some((file) => asPath(arg).length > 0 && (file.startsWith(asPath(arg)) || arg.includes(file)))),
);
const heavyIgnored = Object.keys(HEAVY).map((file) => `<rootDir>/${file}`);
/** The projects that run only when named; `.ci/run` names each (test/unit/test-projects.test.ts). */
export const NAMED_PROJECTS = ['heavy', 'processes', 'arm64', 'slow'];

/** @type {import('jest').Config} */
export default {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], testPathIgnorePatterns: heavyIgnored },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'], testPathIgnorePatterns: heavyIgnored },
    { ...common, displayName: 'http', testMatch: ['<rootDir>/test/http/**/*.test.ts'] },
    { ...common, displayName: 'hardening', testMatch: ['<rootDir>/test/hardening/**/*.test.ts'], testPathIgnorePatterns: heavyIgnored },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'], testPathIgnorePatterns: heavyIgnored },
    ...(heavySelected ? [{ ...common, displayName: 'heavy', testMatch: heavyIgnored }] : []),
    ...(processesSelected ? [{ ...common, displayName: 'processes', testMatch: ['<rootDir>/test/processes/**/*.test.ts'] }] : []),
    ...(arm64Selected ? [{ ...common, displayName: 'arm64', testMatch: ['<rootDir>/test/arm64/**/*.test.ts'] }] : []),
    ...(slowSelected ? [{ ...common, displayName: 'slow', testMatch: ['<rootDir>/test/slow/**/*.test.ts'] }] : []),
  ],
};
