/**
 * The layers as a check (`npm run lint:ci`): the domain declares ports and imports no SDK, store or
 * HTTP code; the store never reaches up into HTTP; runtime code (functions/, and the sign-in
 * package, which a tool's back end runs) imports nothing build-time or local-only, and no
 * devDependency but for types; the sign-in entry reaches nothing of the Lambda pipeline; the client
 * package stands alone; the admin CLI (which runs against deployed stages too) imports nothing
 * local-only; no import cycles anywhere.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: one of the modules should not know the other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-plain',
      comment: 'The domain is plain functions and the ports they declare: no AWS SDK, middy or Lambda types, no store, no HTTP, no events.',
      severity: 'error',
      from: { path: '^(functions/shared|packages/sign-in/src)/domain/' },
      to: {
        path: [
          '^functions/shared/(store|http|events)/',
          '^packages/sign-in/src/store/',
          'node_modules/(@aws-sdk|@smithy|@middy|@types/aws-lambda)/',
        ],
      },
    },
    {
      name: 'contract-is-innermost',
      comment: 'The contract (catalogue, messages, schemas) is read by every layer and reads none of them but the platform (its types).',
      severity: 'error',
      from: { path: '^functions/shared/contract/' },
      to: { path: '^functions/shared/(domain|store|http|events)/' },
    },
    {
      name: 'platform-is-a-leaf',
      comment: 'Config, logger, metrics and caches serve every layer and import none.',
      severity: 'error',
      from: { path: '^functions/shared/platform/' },
      to: { path: '^functions/shared/(contract|domain|store|http|events)/' },
    },
    {
      name: 'store-below-http',
      comment: 'Adapters implement the domain ports; they know nothing of requests and responses.',
      severity: 'error',
      from: { path: '^(functions/shared|packages/sign-in/src)/store/' },
      to: { path: '^functions/shared/(http|events)/' },
    },
    {
      name: 'runtime-not-build-time-or-local',
      comment: 'Runtime code (what the Lambda bundles hold) never imports build-time, local-only or test code.',
      severity: 'error',
      from: { path: '^(functions|packages/sign-in)/' },
      to: { path: '^(codegen|local|scripts|bench|capacity|admin|lib|bin|test|packages/client)/' },
    },
    {
      name: 'functions-not-sign-in',
      comment:
        "What a Lambda function imports lives in functions/: it imports nothing of the packages (the sign-in package's rules included).",
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^packages/' },
    },
    {
      name: 'sign-in-imports-shared-by-name',
      comment:
        "The sign-in package imports what it needs of functions/shared by the workspace's name (@white-label-user-management/shared), never by a relative path into functions/.",
      severity: 'error',
      from: { path: '^packages/sign-in/src/' },
      to: { path: '^functions/', dependencyTypesNot: ['aliased-workspace'] },
    },
    {
      name: 'admin-not-local',
      comment:
        'The admin CLI runs against deployed stages too: it never imports local-only code (npm start, DynamoDB Local, the local server).',
      severity: 'error',
      from: { path: '^admin/' },
      to: { path: '^local/' },
    },
    {
      name: 'runtime-no-dev-dependencies',
      comment: 'A devDependency is not installed in a Lambda asset: runtime code may use one for its types only.',
      severity: 'error',
      from: { path: '^(functions|packages/sign-in)/' },
      // The SSM client is the sign-in package's optional peer: descriptorFromSsm imports it dynamically, and says in one line to install it.
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: '(^|/)node_modules/@aws-sdk/client-ssm/' },
    },
    {
      name: 'client-stands-alone',
      comment:
        'The client (packages/client/) is built from the published contract alone: it imports nothing of the service, its tools, its tests or another package.',
      severity: 'error',
      from: { path: '^packages/client/' },
      to: { path: '^(functions|lib|local|admin|codegen|scripts|bench|capacity|bin|test|packages/(?!client/))' },
    },
    {
      name: 'client-only-openapi-fetch',
      comment: 'What the client imports at run time is installed with it: openapi-fetch and Node built-ins, nothing else.',
      severity: 'error',
      from: { path: '^packages/client/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        dependencyTypesNot: ['type-only'],
        pathNot: 'node_modules/openapi-fetch/',
      },
    },
    {
      name: 'package-imports-its-dependencies',
      comment:
        "A package's own code imports, at run time, only the npm packages its package.json lists (what a stranger's install brings) and Node built-ins.",
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: {
        dependencyTypes: ['npm-dev', 'npm-no-pkg', 'npm-unknown', 'npm-peer', 'npm-optional'],
        dependencyTypesNot: ['type-only'],
        // The sign-in package's optional peer, imported dynamically by descriptorFromSsm only (see runtime-no-dev-dependencies).
        pathNot: '(^|/)node_modules/@aws-sdk/client-ssm/',
      },
    },
    {
      name: 'sign-in-is-not-the-pipeline',
      comment:
        "The sign-in module runs in a tool's back end: through everything it imports, nothing of the Lambda pipeline (HTTP, events, the contract's validators), middy, Powertools or the CDK. The contract's messages (plain text) it shares: changePassword refuses with the API's words.",
      severity: 'error',
      from: { path: '^packages/sign-in/' },
      to: {
        reachable: true,
        path: [
          '^functions/shared/(http|events)/',
          '^functions/shared/contract/(?!messages\\.ts$)',
          '^functions/[^/]+/handler',
          'node_modules/(@middy|@aws-lambda-powertools|aws-cdk-lib|constructs|@types/aws-lambda)/',
        ],
      },
    },
    {
      name: 'resolvable',
      comment: 'Every import resolves.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The packages' build output (gitignored): its sources are checked instead.
    exclude: { path: '^packages/[^/]+/dist/' },
    tsPreCompilationDeps: true,
    // functions/shared is a workspace of its own (@white-label-user-management/shared) with no dependencies listed: what its
    // modules import is the root's, so a module's package.json is read together with those above it, up to the root's.
    combinedDependencies: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
