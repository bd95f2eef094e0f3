// Jest runs in native ESM mode (middy 7 is ESM-only); esbuild strips the types (test/support/transform.js).
const transform = { '^.+\\.ts$': '<rootDir>/test/support/transform.js' };
// A relative import written with `.js` (as Node's ESM wants, in the client package) finds its `.ts` source.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
const common = { transform, moduleNameMapper, extensionsToTreatAsEsm: ['.ts'], testEnvironment: 'node' };

/**
 * The files of the default projects' folders that CI runs and the default `npm test` leaves out, for
 * their time, in the `heavy` project.
 */
const HEAVY_FILES = [
  'test/integration/sign-in.test.ts', // argon2id at its real cost, attempt after attempt
  'test/hardening/soak.test.ts', // a long loop of requests
  'test/hardening/secrets.test.ts', // every operation and sign-in, the logs searched for the secrets sent
  'test/infra/password-check.test.ts', // the stack synthesized with each password-check setting
  'test/infra/capacity-stack.test.ts', // every stage, against the capacity model
  'test/infra/deploy.test.ts', // every stage synthesized
  'test/infra/access-log.test.ts', // every stage synthesized
  'test/infra/deploy-doc.test.ts', // every stage synthesized, against docs/deploy.md
  'test/infra/stateful-resources.test.ts', // every stage synthesized, against its record
  'test/unit/layers.test.ts', // dependency-cruiser over the whole tree, once per injected violation
  // Moved for issue 52, each with its time in the default `npm test` (warm synthesis cache, load 5 to 7 on 2 cores):
  'test/infra/sign-in-descriptor.test.ts', // 33.8 s: prod and staging synthesized with five signInTools settings
  'test/infra/asset.test.ts', // 19.8 s: prod bundled for real (esbuild, npm install into each asset), twice
  'test/unit/password-hashes.test.ts', // 11.1 s: a hash of every accepted shape verified at each ceiling's edge
  'test/unit/password-policy.test.ts', // 10.3 s: the import's policy over the full lists
  'test/unit/client-package.test.ts', // 8.9 s: the client package built and its layer check run
  'test/unit/packages.test.ts', // 8.5 s: each workspace built and packed with npm pack
  'test/hardening/alarm-metrics.test.ts', // 15.9 s (after the seven above): prod synthesized with the online password check on
  // Moved in a later round, each with its time in the default `npm test` (warm synthesis cache, idle machine):
  'test/hardening/timing.test.ts', // 22.2 s: every argon2 call counted, the sign-in's lane saturated by a spray
  'test/integration/event-delivery-checkpoint.test.ts', // 11.7 s: the local delivery stopped and restarted
  'test/integration/lifecycle-events.test.ts', // 10.0 s: every write's event waited for over HTTP and the stream
  'test/infra/permissions-boundary.test.ts', // 9.5 s: the execution policy through the IAM evaluator, every role
  'test/infra/alarm-delivery.test.ts', // 8.6 s: each stage's alarms, topics and dashboard synthesized
  'test/hardening/idempotency.test.ts', // 7.9 s: duplicates raced, faults and expiry, over loopback
  'test/integration/sign-in-memory.test.ts', // 5.9 s: the sign-in's waits held for their stated time
  'test/hardening/sdk-retries.test.ts', // 5.6 s: the SDK's retries and 3 s attempt bound against a stalling socket
].map((file) => `<rootDir>/${file}`);

/**
 * The files CI runs one at a time after the others (with the `slow` project), since they bound a
 * peak of memory or a time against another measured in the same process: two workers sharing the
 * two cores would move those. The other projects run on two workers in CI.
 */
const ALONE_FILES = [
  'test/processes/sign-in-fair-lane.test.ts', // a spray's peak memory and the quiet users' tries while the lane is full
  'test/processes/sign-in-package.test.ts', // a burst's time against a quiet run's, and its peak memory
].map((file) => `<rootDir>/${file}`);

// The base stages synthesized once into the synthesis cache, for the projects whose tests read it.
const synthesized = { globalSetup: '<rootDir>/test/support/synth-setup.ts' };
const project = (displayName, testMatch, more = {}) => ({ ...common, displayName, testMatch, ...more });
const folder = (name) => [`<rootDir>/test/${name}/**/*.test.ts`];

/**
 * The projects. `npm test` alone runs the first five (scripts/test.ts names them); `npm test -- <file>`
 * runs that file whatever project holds it; `npm test -- --selectProjects <name>` runs a project.
 * CI (`.ci/run`) runs every one, `slow` alone after the others.
 */
/** @type {import('jest').Config} */
export default {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  projects: [
    project('unit', folder('unit'), { testPathIgnorePatterns: HEAVY_FILES }),
    project('integration', folder('integration'), { testPathIgnorePatterns: HEAVY_FILES }),
    project('http', folder('http')),
    project('hardening', folder('hardening'), { testPathIgnorePatterns: HEAVY_FILES }),
    project('infra', folder('infra'), { testPathIgnorePatterns: HEAVY_FILES, ...synthesized }),
    // CI only: the files above, by name.
    project('heavy', HEAVY_FILES, synthesized),
    // CI only: the admin CLI, npm start, the docs page in Chromium, synth and the built packages as real child processes.
    project('processes', folder('processes'), { testPathIgnorePatterns: ALONE_FILES, ...synthesized }),
    // CI only: each Lambda asset run on arm64 Node under qemu.
    project('arm64', folder('arm64')),
    // CI only, alone: imports of 10,000 and 100,000 users, measuring memory (it loads the engine and both
    // cores), and the files above.
    project('slow', [...folder('slow'), ...ALONE_FILES]),
  ],
};
