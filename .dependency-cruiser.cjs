// The layers of the service and which way their imports may point (docs/architecture.md, "Layers").
// `npm test` runs `depcruise src contracts workflows activities workers scripts bench sdk` with this file after
// tsc; test/unit/layering.test.ts proves that each rule refuses what it names.
//
//   entry points   src/api, src/admin, workers, src/provider/sandbox, scripts
//   contracts      contracts/: each workflow's name, input, result, updates, signals and queries, and
//                  the search attributes; what workflows, activities and clients share. At run
//                  time only the Temporal SDK's definitions; types of the domain and the provider
//                  protocol. Workflows and activities both import it and never each other at run
//                  time (workflows know activities by their types only; activities import nothing
//                  of workflows/).
//   orchestration  workflows (deterministic; nothing outside imports them), activities
//   services       src/services
//   below them     src/representations, src/temporal, src/config.ts, and the data access and
//                  support layers (read models, db, vault, provider client, webhooks, ...)
//   domain         src/domain: pure
// Migrations (src/db/migrations) are frozen: they import only typeorm, node builtins and the frozen
// helpers beside them. The bench (bench/) is a harness like scripts/: it may import anything of the
// service, and nothing of the service imports it; its helpers (bench/lib) know no scenario. The SDK (sdk/) is a package merchants install: it
// imports nothing but its own modules, Node's and standardwebhooks, and nothing imports it.

const ENTRY_POINTS = {
  api: '^src/api/',
  'admin-cli': '^src/admin/',
  worker: '^workers/',
  sandbox: '^src/provider/sandbox/',
  scripts: '^scripts/',
};
const ANY_ENTRY_POINT = Object.values(ENTRY_POINTS);
const BENCH = '^bench/';
const SDK = '^sdk/';
/** What starts several entry points in one process tree, so may import them. */
const HARNESSES = [ENTRY_POINTS.scripts, BENCH];
const OURS = '^(src|contracts|workflows|activities|workers|scripts|bench)/';
const DOMAIN = '^src/domain/';
const WORKFLOWS = '^workflows/';
const CONTRACTS = '^contracts/';
const ACTIVITIES = '^activities/';
const PROVIDER_TYPES = '^src/provider/types\\.ts$';
const SERVICES = '^src/services/';
const REPRESENTATIONS = '^src/representations/';
const MIGRATIONS = '^src/db/migrations/';
/** Data access and support: read models, database, vault, provider client, webhooks, Temporal calls, ... */
const DATA_ACCESS_FOLDERS = 'read-models|db|vault|provider|webhooks|observability|background|web|replay|temporal';
const DATA_ACCESS = `^src/(${DATA_ACCESS_FOLDERS})/`;
/**
 * What workflow code may use at run time besides its own modules and the domain (a linked
 * node_modules resolves to a path outside the checkout, hence no anchor).
 */
const WORKFLOW_SDK = '(^|/)node_modules/@temporalio/(workflow|common)/';

const nothingImportsEntryPoints = Object.entries(ENTRY_POINTS).map(([name, path]) => ({
  name: `nothing-imports-entry-point-${name}`,
  comment: `An entry point (${path}) is where a process starts: only its own modules, scripts/ and bench/ import it.`,
  severity: 'error',
  from: { pathNot: [path, ...HARNESSES] },
  to: { path },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules form a graph without cycles, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every import names a module that exists.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain holds the rules and imports only itself and libraries: no I/O, no framework, no layer above it.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: OURS, pathNot: DOMAIN },
    },
    {
      name: 'config-is-a-leaf',
      comment: 'src/config.ts reads the environment for everyone and depends on nothing of ours.',
      severity: 'error',
      from: { path: '^src/config\\.ts$' },
      to: { path: OURS },
    },
    {
      name: 'migrations-are-frozen',
      comment: 'A migration imports only typeorm, node builtins and the frozen helpers beside it, so changing live code never changes what an old migration does.',
      severity: 'error',
      from: { path: MIGRATIONS },
      to: { pathNot: [MIGRATIONS, '(^|/)node_modules/typeorm/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'migrations-only-from-data-source',
      comment: 'Migrations run through the DataSource (src/db/data-source.ts) and nothing else.',
      severity: 'error',
      from: { pathNot: [MIGRATIONS, '^src/db/data-source\\.ts$'] },
      to: { path: MIGRATIONS },
    },
    {
      name: 'contracts-import-only-types',
      comment: 'A contract (contracts/) runs in the workflow sandbox and in every client: at run time it imports only other contracts and the Temporal SDK\'s definitions.',
      severity: 'error',
      from: { path: CONTRACTS },
      to: { pathNot: [CONTRACTS, WORKFLOW_SDK], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'contracts-know-only-domain-types',
      comment: 'A contract names types of the domain and of the provider protocol, and of nothing else of ours: no workflow, activity or service.',
      severity: 'error',
      from: { path: CONTRACTS },
      to: { path: OURS, pathNot: [CONTRACTS, DOMAIN, PROVIDER_TYPES], dependencyTypes: ['type-only'] },
    },
    {
      name: 'workflows-deterministic',
      comment: 'Workflow code runs in the deterministic sandbox: at run time it imports only the Temporal workflow SDK, workflows/, contracts/ and src/domain.',
      severity: 'error',
      from: { path: WORKFLOWS },
      to: { pathNot: [WORKFLOWS, CONTRACTS, DOMAIN, WORKFLOW_SDK], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-import-only-types-of-activities',
      comment: 'Workflows know activities (and the provider protocol) by their types only; the worker registers the implementations.',
      severity: 'error',
      from: { path: WORKFLOWS },
      to: { pathNot: [WORKFLOWS, CONTRACTS, DOMAIN, WORKFLOW_SDK, ACTIVITIES, PROVIDER_TYPES], dependencyTypes: ['type-only'] },
    },
    {
      name: 'activities-never-import-workflows',
      comment: 'Activities share with workflows only the contracts (contracts/), so the two folders never import each other both ways.',
      severity: 'error',
      from: { path: ACTIVITIES },
      to: { path: WORKFLOWS },
    },
    {
      name: 'nothing-imports-workflows',
      comment: 'Outside workflows/, workflows are known by their contracts (contracts/): no client depends on a workflow implementation.',
      severity: 'error',
      from: { pathNot: WORKFLOWS },
      to: { path: WORKFLOWS },
    },
    {
      name: 'activities-below-entry-points',
      comment: 'Activities (the worker\'s side effects) may call services and the layers below, never an entry point.',
      severity: 'error',
      from: { path: ACTIVITIES },
      to: { path: ANY_ENTRY_POINT },
    },
    {
      name: 'services-below-entry-points',
      comment: 'Services serve the entry points and activities; they never import them.',
      severity: 'error',
      from: { path: SERVICES },
      to: { path: [...ANY_ENTRY_POINT, ACTIVITIES] },
    },
    {
      name: 'entry-points-use-services',
      comment: 'Entry points read and write through services: no read models, tables or workflow calls of their own. Their start-up opens and migrates the database, and the error mapper reads a thrown driver error.',
      severity: 'error',
      from: { path: ['^src/api/', '^src/admin/', '^workers/'] },
      to: { path: ['^src/read-models/', '^src/db/', '^src/temporal/calls\\.ts$'], pathNot: '^src/db/(data-source|migrate|errors)\\.ts$' },
    },
    {
      name: 'representations-below-services',
      comment: 'How objects look per API version, for answers and webhook bodies alike, derives from the domain alone.',
      severity: 'error',
      from: { path: REPRESENTATIONS },
      to: { path: OURS, pathNot: [REPRESENTATIONS, DOMAIN] },
    },
    {
      name: 'no-upward-imports-from-data-access',
      comment: 'Read models, the database, the vault, the provider client, webhooks, Temporal calls and the other support modules never import the layers above them.',
      severity: 'error',
      from: { path: DATA_ACCESS, pathNot: ENTRY_POINTS.sandbox },
      to: { path: [...ANY_ENTRY_POINT, ACTIVITIES, SERVICES, REPRESENTATIONS] },
    },
    {
      name: 'only-temporal-calls-start-workflows',
      comment: 'Below the services, only src/temporal uses a workflow contract at run time (to start or call a workflow); others use its types.',
      severity: 'error',
      from: { path: DATA_ACCESS, pathNot: '^src/temporal/' },
      to: { path: CONTRACTS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'modules-belong-to-a-layer',
      comment: 'Every module under src/ is in a folder of a known layer (docs/architecture.md, "Layers"); a new folder takes its place here first.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/config\\.ts$', `^src/(api|admin|services|representations|domain|${DATA_ACCESS_FOLDERS})/`] },
      to: {},
    },
    ...nothingImportsEntryPoints,
    {
      name: 'bench-lib-knows-no-scenario',
      comment: 'bench/lib holds the harness\'s tools (load, seed, explain, machine); the scenarios, targets and report above use them, never the other way round.',
      severity: 'error',
      from: { path: '^bench/lib/' },
      to: { path: BENCH, pathNot: '^bench/lib/' },
    },
    {
      name: 'nothing-imports-bench',
      comment: 'The bench measures the service from outside: no module of the service depends on it.',
      severity: 'error',
      from: { pathNot: BENCH },
      to: { path: BENCH },
    },
    {
      name: 'sdk-is-standalone',
      comment: 'The SDK is installed on its own: it imports its own modules, node builtins and standardwebhooks (its one dependency), nothing of the service.',
      severity: 'error',
      from: { path: SDK },
      to: { pathNot: [SDK, '(^|/)node_modules/standardwebhooks/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'nothing-imports-sdk',
      comment: 'The SDK is a client of the service: the service never depends on it (its tests may).',
      severity: 'error',
      from: { pathNot: SDK },
      to: { path: SDK },
    },
    {
      name: 'bench-workflow-deterministic',
      comment: 'The baseline\'s workflow runs in the deterministic sandbox: at run time it imports only the Temporal workflow SDK.',
      severity: 'error',
      from: { path: '^bench/baseline/workflows\\.ts$' },
      to: { pathNot: WORKFLOW_SDK, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
