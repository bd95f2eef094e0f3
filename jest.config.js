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
 * The heavy project: the default projects' files that each take a minute or more (argon2 at its
 * real cost many times over, long request loops), measured in the default run (CONTRIBUTING,
 * "Tests"). They keep their folders; they run when named, or when one of them is:
 * `npm test -- --selectProjects heavy` (`.ci/run` runs it with the others).
 */
const HEAVY = ['test/integration/sign-in.test.ts', 'test/hardening/soak.test.ts', 'test/hardening/secrets.test.ts'];
const heavySelected = process.argv.some((arg) => arg === 'heavy' || HEAVY.some((file) => arg.includes(file)));
const heavyIgnored = HEAVY.map((file) => `<rootDir>/${file}`);

/** @type {import('jest').Config} */
export default {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'], testPathIgnorePatterns: heavyIgnored },
    { ...common, displayName: 'http', testMatch: ['<rootDir>/test/http/**/*.test.ts'] },
    { ...common, displayName: 'hardening', testMatch: ['<rootDir>/test/hardening/**/*.test.ts'], testPathIgnorePatterns: heavyIgnored },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    ...(heavySelected ? [{ ...common, displayName: 'heavy', testMatch: heavyIgnored }] : []),
    ...(processesSelected ? [{ ...common, displayName: 'processes', testMatch: ['<rootDir>/test/processes/**/*.test.ts'] }] : []),
    ...(arm64Selected ? [{ ...common, displayName: 'arm64', testMatch: ['<rootDir>/test/arm64/**/*.test.ts'] }] : []),
    ...(slowSelected ? [{ ...common, displayName: 'slow', testMatch: ['<rootDir>/test/slow/**/*.test.ts'] }] : []),
  ],
};
