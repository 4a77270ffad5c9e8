// Which module may import which: Parley's layers, checked by `npm run check` (dependency-cruiser).
//
// Layers, lowest first; a module imports only from its own layer or lower ones:
//   1. lib/                      clock, ids, secrets, formats
//   2. errors/                   AppError and its kinds
//   3. config/, storage/
//   4. domain/<module>/          rules and queries (a module may import other domain modules)
//   5. contract/                 what the surfaces share: response schemas (each checked against its
//                                domain type), requests the chat API and /connect both take, client auth
//   6. api/<family>/, realtime/  the surfaces: the HTTP families (each on its own), the /connect
//                                gateway, the hubs and presence
//      compat/<product>/         beside them: the translation for another product's clients (the
//                                TapTalk.io SDKs), hooked in by app.ts alone
//   7. app.ts, services.ts, listeners.ts, main.ts, server.ts, cli/: the composition root
// One module stands off that ladder: http/ (HTTP plumbing the surfaces share: envelope, error mapping,
// validation, docs, metrics) knows only lib/ and errors/, and the domain may not import it.
// The domain announces nothing itself: it reports happenings to its dispatcher, and the listeners
// (listeners.ts, realtime/frame-listeners.ts) publish frames on the hub, so no domain module
// imports realtime/.
//
// Imports are read with swc, which does not tell `import type` from a value import: every rule below
// counts both.
//
// Only src/ is cruised. test/ may import anything. The console (console/src) must not import src/,
// test/ or anything else outside itself (it talks to the server over HTTP; its generated API types
// must be written inside console/src); that rule is kept by `"rootDir": "src"` in console/tsconfig.json, which the
// type-check enforces for type imports too: dependency-cruiser's swc parser cannot read .tsx.

const SRC_OTHER_THAN = (...dirs) => ({ path: '^src/', pathNot: `^src/(${dirs.join('|')})/` })

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'A cycle means neither module can be read, tested or loaded without the other; the layer rules ' +
        'below cannot see cycles inside one layer (between two domain modules, say). Type imports count: ' +
        'a type two modules share belongs in a third, lower one.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'lib-is-the-floor',
      comment: 'lib/ (clock, ids, secrets, formats) is used by every layer, so it may use none of them.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: SRC_OTHER_THAN('lib'),
    },
    {
      name: 'errors-above-lib-only',
      comment: 'AppError and its kinds are thrown from every layer, so they may depend on lib/ alone.',
      severity: 'error',
      from: { path: '^src/errors/' },
      to: SRC_OTHER_THAN('lib', 'errors'),
    },
    {
      name: 'config-storage-below-domain',
      comment:
        'Configuration and storage (Kysely, migrations, group commit) serve the domain; they must not ' +
        'know about domain modules, HTTP or real time, or a schema change would ripple upwards.',
      severity: 'error',
      from: { path: '^src/(config|storage)/' },
      to: SRC_OTHER_THAN('lib', 'errors', 'config', 'storage'),
    },
    {
      name: 'http-knows-no-domain',
      comment:
        'http/ is the HTTP plumbing every surface shares (envelope, error mapping, validation, docs, ' +
        'metrics); it knows no domain module, API family or real-time code, so what it needs from them ' +
        'is passed in (e.g. metrics take a small meter interface, not the delivery worker).',
      severity: 'error',
      from: { path: '^src/http/' },
      to: SRC_OTHER_THAN('lib', 'errors', 'http'),
    },
    {
      name: 'domain-below-transports',
      comment:
        'Rules and queries must run without a transport (HTTP, sockets, Redis): the domain may import ' +
        'lower layers and other domain modules, nothing of http/, api/ or the composition root.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(lib|errors|config|storage|domain)/' },
    },
    {
      name: 'domain-not-into-realtime',
      comment:
        'The domain reports what happened to its dispatcher (domain/happenings/); which frames follow, ' +
        "and the hub that carries them, are the listeners' business (listeners.ts, realtime/). A domain " +
        'module that published itself would bypass the frame catalogue and the listener list.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/realtime/' },
    },
    {
      name: 'no-transport-packages-below-the-surfaces',
      comment:
        'Fastify, ws and ioredis are transport details: the domain and the layers under it take what ' +
        'they need (a logger, a hub) as small interfaces, so they run and test without them. This ' +
        'counts type imports too (e.g. FastifyBaseLogger). Redis connections are opened in one place, ' +
        'storage/redis.ts (Redis is a store, as the database is), and handed to what uses them.',
      severity: 'error',
      from: {
        path: '^src/(lib|errors|config|storage|domain)/',
        pathNot: '^src/storage/redis\\.ts$',
      },
      to: { path: '^node_modules/(fastify|@fastify/[^/]+|ws|ioredis)/' },
    },
    {
      name: 'api-families-are-independent',
      comment:
        'Each api/<family> is a thin surface over the domain; one family importing another ties two URL ' +
        'surfaces together. What several families share lives below them: schemas and client auth in ' +
        'contract/, reading credentials in http/.',
      severity: 'error',
      from: { path: '^src/api/([^/]+)/' },
      to: { path: '^src/api/', pathNot: '^src/api/$1/' },
    },
    {
      name: 'api-not-into-realtime',
      comment:
        'The API families and the /connect gateway are sibling surfaces: an API family may use the Hub ' +
        'interface, not the gateway, presence or the Redis hub (those are handed in where the app is built).',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/realtime/', pathNot: '^src/realtime/hub\\.ts$' },
    },
    {
      name: 'realtime-not-into-api-families',
      comment:
        'The /connect gateway is a surface beside the API families, not on top of them: what both need ' +
        '(message schemas in contract/, reading credentials and the agent cookie name in http/) lives lower.',
      severity: 'error',
      from: { path: '^src/realtime/' },
      to: { path: '^src/api/' },
    },
    {
      name: 'contract-below-the-surfaces',
      comment:
        'contract/ is what the API families and the /connect gateway share (schemas, client auth); ' +
        'importing one of them would tie every surface to it.',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/(api|realtime)/' },
    },
    {
      name: 'compat-at-one-boundary',
      comment:
        "A compatibility layer translates another product's requests and answers at the edge: only the " +
        "app wires it in, and it uses the surfaces' plumbing (http/, contract/, the socket Dialect) and " +
        "the domain, never an API family, so that Parley's own API knows nothing of it.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/app\\.ts$', '^src/compat/'] },
      to: { path: '^src/compat/' },
    },
    {
      name: 'compat-not-into-api-families',
      comment: 'The compatibility layer wraps the API families from outside (hooks), not by calling them.',
      severity: 'error',
      from: { path: '^src/compat/' },
      to: { path: '^src/api/' },
    },
    {
      name: 'composition-root-on-top',
      comment:
        'app.ts, services.ts, listeners.ts, main.ts, server.ts and cli/ wire everything together; a module below importing them ' +
        'would pull in the whole application and close a cycle.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(app|services|listeners|main|server)\\.ts$', '^src/cli/'] },
      to: { path: ['^src/(app|services|listeners|main|server)\\.ts$', '^src/cli/'] },
    },
    {
      name: 'server-imports-no-other-tree',
      comment:
        'src/ is what ships as the server: it must not import the console (served as built files), ' +
        'tests, benchmarks or examples. (test/ itself may import anything, so it is not cruised.)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(console|test|bench|examples)/' },
    },
    {
      name: 'imports-resolve',
      comment: 'An import the cruiser cannot resolve is one no rule above can check.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // swc parses TypeScript here: dependency-cruiser's tsc parser needs TypeScript's JS API (< 7).
    parser: 'swc',
    doNotFollow: { path: '^node_modules/' },
  },
}
