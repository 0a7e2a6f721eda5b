/**
 * Redis ACL users: one per service (and `keda`, read-only, for the autoscaler), each holding only
 * its own keys and the commands it needs on them (issue #48, security 1). What each service
 * touches is stated once, in SERVICE_KEYS, and turned into ACL selectors `(~keys +commands)`: a
 * command is allowed when one selector allows the command on every key it names.
 *
 * Every service's user:
 * - publishes only its own events: XADD on `<prefix>events:<service>:<n>`, and reads them (the
 *   outbox relay's check of what its consumers confirmed) and its history marker;
 * - consumes, in its own consumer groups, the sources it handles: creates its group (XGROUP
 *   CREATE; never SETID, DESTROY or DELCONSUMER), reads and acknowledges (XREADGROUP, XACK,
 *   XAUTOCLAIM, XPENDING, XINFO, XLEN, XRANGE); its partition leases (`lease:<group>:*`), its dead
 *   letter (`events:dlq:<group>`) and the admin's replay request for it (`dlq-replay:<group>`);
 * - reads the revoked sessions and claims changes (identity alone writes them) and subscribes to
 *   their channel.
 * And besides: identity its rate limits; jobs its BullMQ queue (`bull:jobs-timers:*`, which no
 *   other user may touch); admin the dead letters of every group (the Overview: count, list,
 *   request a replay); the gateway its rate limits and its live channel (`live:*`: the stream of
 *   live messages, the appended-event markers, the stream tickets). Nobody may delete a stream,
 *   trim it, move a consumer group or touch another service's keys; nothing outside the prefix;
 *   no server administration.
 *
 *   npx tsx scripts/redis-acl.ts                      ACL SETUSER lines (passwords from REDIS_PASSWORD_<USER>)
 *   npx tsx scripts/redis-acl.ts --aclfile            the same as `user ...` lines of an ACL file
 *   npx tsx scripts/redis-acl.ts --prefix=htm: --template   an ACL file with @REDIS_PASSWORD_<USER>@ placeholders
 *                                                           (deploy/redis/users.acl.template; a test keeps it current)
 *
 * test/redis-acl.test.ts loads the generated file into a redis-server of its own and checks each
 * user's refusals and that the whole marketplace runs with every service as its own user (the ACL
 * log stays empty). See docs/operations.md, "Event bus credentials".
 */
import { pathToFileURL } from 'node:url';

export const REDIS_USERS = [
  'identity',
  'jobs',
  'payments',
  'admin',
  'notifications',
  'analytics',
  'site-check',
  'gateway',
] as const;
export type RedisUser = (typeof REDIS_USERS)[number];

/** The event sources (packages/events EVENT_SOURCES): one stream per partition each. */
export const STREAM_SOURCES = ['identity', 'jobs', 'payments', 'admin', 'site-check'] as const;
type Source = (typeof STREAM_SOURCES)[number];

/** One ACL selector: these commands on these keys (patterns after the prefix). */
export interface Grant {
  keys: readonly string[];
  commands: readonly string[];
}

/** What a service's user does in Redis. */
export interface ServiceKeys {
  /** The event sources it publishes (its own: a service writes no other's stream). */
  publishes: readonly Source[];
  /** Its consumer groups and the sources each reads. */
  groups: Readonly<Record<string, readonly Source[]>>;
  /** Its other keys. */
  own?: readonly Grant[];
  /** Commands without keys it needs besides the common ones. */
  keyless?: readonly string[];
  /** May publish on the revoked-sessions channel (identity). */
  publishesRevocations?: boolean;
}

/** express-rate-limit's Redis store (rate-limit-redis): its Lua script and what it runs by itself. */
const RATE_LIMIT_COMMANDS = ['evalsha', 'eval', 'get', 'set', 'incr', 'pttl', 'decr', 'del'];

/**
 * BullMQ on its own queue's keys: its Lua scripts read and write lists, sorted sets, hashes and
 * its event stream; the worker blocks on the marker. Nothing dangerous, nothing without a key
 * beyond the common commands (SCAN, SCRIPT FLUSH, FUNCTION... are taken out again).
 */
const BULLMQ_COMMANDS = [
  '+@read',
  '+@write',
  '+@keyspace',
  '+@scripting',
  '+@blocking',
  '-@dangerous',
  '-@pubsub',
  '-scan',
  '-randomkey',
  '-script',
  '-function',
  '-fcall',
  '-fcall_ro',
];

/** The BullMQ queue of the jobs service's timers (services/jobs TIMER_QUEUE, prefix `<prefix>bull`). */
export const TIMER_QUEUE_KEYS = 'bull:jobs-timers:*';

/** What every service's user touches, stated once (a test checks it against what the services consume). */
export const SERVICE_KEYS: Record<RedisUser, ServiceKeys> = {
  identity: {
    publishes: ['identity'],
    groups: { identity: ['admin', 'jobs'] },
    own: [
      { keys: ['ratelimit:identity:*'], commands: RATE_LIMIT_COMMANDS },
      // Revoked sessions and claims changes: identity alone records them (in one MULTI).
      {
        keys: ['auth:revoked-sessions', 'auth:claims-changed'],
        commands: ['zadd', 'zremrangebyscore', 'pexpire'],
      },
    ],
    keyless: ['script|load'],
    publishesRevocations: true,
  },
  jobs: {
    publishes: ['jobs'],
    // Its timers and webhooks follow from its own outbox (#50): it reads no stream of its own.
    // SiteChecked / SiteCheckFailed: the health check kept for the share page and the PDF.
    groups: { jobs: ['identity', 'payments', 'site-check'] },
    own: [{ keys: [TIMER_QUEUE_KEYS], commands: BULLMQ_COMMANDS }],
    keyless: ['time'],
  },
  payments: { publishes: ['payments'], groups: { payments: ['identity', 'jobs'] } },
  admin: {
    publishes: ['admin'],
    groups: { admin: ['identity', 'jobs', 'payments'] },
    // The Overview's dead letters: every group's, counted and listed; a replay is asked of the
    // group's own consumers with a plain key (it never writes another service's stream).
    own: [
      { keys: ['events:dlq:*'], commands: ['xlen', 'xrange'] },
      { keys: ['dlq-replay:*'], commands: ['set'] },
    ],
    keyless: ['scan'],
  },
  notifications: {
    publishes: [],
    groups: { notifications: ['admin', 'identity', 'jobs', 'payments'] },
  },
  analytics: {
    publishes: [],
    groups: { analytics: ['admin', 'identity', 'jobs', 'payments'] },
  },
  // The machine health check: who owns and holds each job, its payment; it publishes its results.
  'site-check': {
    publishes: ['site-check'],
    groups: { 'site-check': ['identity', 'jobs', 'payments'] },
  },
  gateway: {
    publishes: [],
    groups: { 'gateway-live': ['jobs', 'payments', 'identity', 'admin'] },
    own: [
      { keys: ['rl:*'], commands: [...RATE_LIMIT_COMMANDS, 'incrby', 'pexpire'] },
      // The live channel: the stream of live messages (appended by the feed's script, read by
      // every replica), the appended-event markers and the single-use stream tickets.
      {
        keys: ['live:*'],
        commands: ['eval', 'evalsha', 'set', 'getdel', 'xadd', 'xread', 'xrange', 'xrevrange'],
      },
    ],
    keyless: ['script|load'],
  },
};

/** Commands every service's connections run without keys: the handshake, transactions, subscribing. */
const COMMON_KEYLESS = [
  'ping',
  'echo',
  'hello',
  'auth',
  'quit',
  'select',
  'multi',
  'exec',
  'discard',
  'subscribe',
  'unsubscribe',
  // ioredis' ready check and BullMQ's version check read INFO; connections name themselves.
  'info',
  'client|setname',
  'client|getname',
  'client|id',
  'client|info',
];

/** A consumer group's commands on the streams it reads (never SETID, DESTROY, DELCONSUMER, XADD...). */
const CONSUMER_COMMANDS = [
  'xgroup|create',
  'xgroup|createconsumer',
  'xreadgroup',
  'xack',
  'xautoclaim',
  'xclaim',
  'xpending',
  'xinfo|groups',
  'xinfo|stream',
  'xlen',
  'xrange',
  'xrevrange',
];
/** The outbox relay on its own streams: publish, and see what every group has confirmed. */
const PUBLISHER_COMMANDS = [
  'xadd',
  'xlen',
  'xinfo|groups',
  'xinfo|stream',
  'xpending',
  'xrange',
  'xrevrange',
];

const glob = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
const streamOf = (s: Source) => `events:${s}:[0-9]*`;

/** The selectors of one user: each a set of keys (after the prefix) and the commands on them. */
export function grantsOf(user: RedisUser): Grant[] {
  const k = SERVICE_KEYS[user];
  const grants: Grant[] = [];
  for (const s of k.publishes) {
    grants.push({ keys: [streamOf(s)], commands: PUBLISHER_COMMANDS });
    // The marker that the streams still hold their history (outbox relay).
    grants.push({ keys: [`events:${s}:history`], commands: ['exists', 'get', 'set'] });
  }
  for (const [group, sources] of Object.entries(k.groups)) {
    grants.push({ keys: sources.map(streamOf), commands: CONSUMER_COMMANDS });
    // Its partitions' leases (a Lua script: GET, SET PX, PEXPIRE, DEL of its own lease keys).
    grants.push({
      keys: [`lease:${glob(group)}:*`],
      commands: ['eval', 'evalsha', 'get', 'set', 'pexpire', 'del'],
    });
    grants.push({
      keys: [`events:dlq:${glob(group)}`],
      commands: ['xadd', 'xrange', 'xdel', 'xlen'],
    });
    grants.push({ keys: [`dlq-replay:${glob(group)}`], commands: ['getdel'] });
  }
  // Everyone keeps the revoked sessions in memory (read at start and after a reconnect).
  grants.push({
    keys: ['auth:revoked-sessions', 'auth:claims-changed'],
    commands: ['zrangebyscore'],
  });
  grants.push(...(k.own ?? []));
  return grants;
}

const commandRule = (c: string) => (/^[+-]/.test(c) ? c : `+${c}`);

/** The rules of one user (without its password). */
export function redisUserRules(user: RedisUser, prefix: string): string[] {
  const p = glob(prefix);
  const k = SERVICE_KEYS[user];
  return [
    'reset',
    'on',
    'resetchannels',
    `&${p}auth:revoked-sessions`,
    '-@all',
    ...[
      ...COMMON_KEYLESS,
      ...(k.keyless ?? []),
      ...(k.publishesRevocations ? ['publish'] : []),
    ].map(commandRule),
    ...grantsOf(user).map(
      (g) =>
        `(${[...g.keys.map((key) => `~${p}${key}`), ...g.commands.map(commandRule)].join(' ')})`,
    ),
  ];
}

/**
 * KEDA's user (the prod overlay's keda components, TriggerAuthentication `htm-keda-redis`): reads
 * only, and only what the scalers ask: a consumer group's lag and pending entries on the event
 * streams (XINFO GROUPS/STREAM, XPENDING, XLEN) and the timer queue's length (LLEN on BullMQ's
 * lists), plus PING and the connection handshake. It can write nothing, read no entry's content
 * (no XRANGE/XREAD), and touch no key outside the streams and BullMQ's.
 */
export function kedaUserRules(prefix: string): string[] {
  const p = glob(prefix);
  return [
    'reset',
    'on',
    'resetchannels',
    `%R~${p}events:*`,
    `%R~${p}bull:*`,
    '-@all',
    ...KEDA_COMMANDS.map((c) => `+${c}`),
  ];
}
/** What KEDA's redis-streams (lagCount, pendingEntriesCount, streamLength) and redis (listLength) scalers run. */
export const KEDA_COMMANDS = [
  'xinfo|groups',
  'xinfo|stream',
  'xpending',
  'xlen',
  'llen',
  'ping',
  'hello',
  'auth',
];

/** `ACL SETUSER` argument lists, one per user, with each user's password (`>pw`). */
export function aclSetUserArgs(
  prefix: string,
  passwords: Record<RedisUser, string>,
  names: (u: RedisUser) => string = (u) => u,
): string[][] {
  return REDIS_USERS.map((u) => [
    'SETUSER',
    names(u),
    ...redisUserRules(u, prefix),
    `>${passwords[u]}`,
  ]);
}

/**
 * The users as lines of `ACL SETUSER` (redis-cli) or of a whole ACL file (`user ...`). An ACL file
 * also switches the passwordless `default` user off and adds `ops`, the operators' user (replaying
 * dead letters writes to any stream; health checks), with its own password.
 */
export function aclLines(
  prefix: string,
  password: (u: RedisUser | 'ops' | 'keda') => string,
  format: 'setuser' | 'aclfile',
): string[] {
  const line = (u: RedisUser | 'keda', rules: string[]) =>
    format === 'setuser'
      ? `ACL SETUSER ${u} ${rules.join(' ')}`
      : `user ${u} ${rules.filter((r) => r !== 'reset').join(' ')}`;
  const services = REDIS_USERS.map((u) =>
    line(u, [...redisUserRules(u, prefix), `>${password(u)}`]),
  );
  const keda = line('keda', [...kedaUserRules(prefix), `>${password('keda')}`]);
  if (format === 'setuser') return [...services, keda];
  return ['user default off', ...services, keda, `user ops on ~* &* +@all >${password('ops')}`];
}

/** The environment variable holding a user's password. */
export const passwordVar = (u: RedisUser | 'ops' | 'keda') =>
  `REDIS_PASSWORD_${u.toUpperCase().replace(/-/g, '_')}`;

function main(argv: string[]) {
  const prefix =
    /^--prefix=(.*)$/.exec(argv.find((a) => a.startsWith('--prefix=')) ?? '')?.[1] ??
    process.env.REDIS_PREFIX ??
    'htm:';
  const template = argv.includes('--template');
  const format = template || argv.includes('--aclfile') ? 'aclfile' : 'setuser';
  const lines = aclLines(
    prefix,
    (u) => {
      if (template) return `@${passwordVar(u)}@`;
      const pw = process.env[passwordVar(u)];
      if (!pw) throw new Error(`${passwordVar(u)} is not set (the password of Redis user ${u})`);
      return pw;
    },
    format,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`redis-acl: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
