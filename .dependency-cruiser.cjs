// The layers of the service and which way their imports may point (docs/architecture.md, "Layers").
// `npm test` runs `depcruise src workflows activities workers scripts` with this file after tsc;
// test/unit/layering.test.ts proves that each rule refuses what it names.
//
//   entry points   src/api, src/admin, workers, src/provider/sandbox, scripts
//   orchestration  workflows (deterministic; others import only workflows/contracts), activities
//   services       src/services
//   below them     src/representations, src/temporal, src/config.ts, and the data access and
//                  support layers (read models, db, vault, provider client, webhooks, ...)
//   domain         src/domain: pure
// Migrations (src/db/migrations) are frozen: they import only typeorm, node builtins and the frozen
// helpers beside them.

const ENTRY_POINTS = {
  api: '^src/api/',
  'admin-cli': '^src/admin/',
  worker: '^workers/',
  sandbox: '^src/provider/sandbox/',
  scripts: '^scripts/',
};
const ANY_ENTRY_POINT = Object.values(ENTRY_POINTS);
const OURS = '^(src|workflows|activities|workers|scripts)/';
const DOMAIN = '^src/domain/';
const WORKFLOWS = '^workflows/';
const CONTRACTS = '^workflows/contracts/';
const ACTIVITIES = '^activities/';
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
  comment: `An entry point (${path}) is where a process starts: only its own modules and scripts/ import it.`,
  severity: 'error',
  from: { pathNot: [path, ENTRY_POINTS.scripts] },
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
      name: 'workflows-deterministic',
      comment: 'Workflow code runs in the deterministic sandbox: at run time it imports only the Temporal workflow SDK, workflows/ and src/domain.',
      severity: 'error',
      from: { path: WORKFLOWS },
      to: { pathNot: [WORKFLOWS, DOMAIN, WORKFLOW_SDK], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-import-only-types-of-activities',
      comment: 'Workflows know activities (and the provider protocol) by their types only; the worker registers the implementations.',
      severity: 'error',
      from: { path: WORKFLOWS },
      to: { pathNot: [WORKFLOWS, DOMAIN, WORKFLOW_SDK, ACTIVITIES, '^src/provider/types\\.ts$'], dependencyTypes: ['type-only'] },
    },
    {
      name: 'contracts-only-from-workflows',
      comment: 'Outside workflows/, only the contracts (workflows/contracts) are imported: no client depends on a workflow implementation.',
      severity: 'error',
      from: { pathNot: WORKFLOWS },
      to: { path: WORKFLOWS, pathNot: CONTRACTS },
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
