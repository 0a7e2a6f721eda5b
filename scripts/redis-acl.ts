/**
 * Redis ACL users for the event bus: one user per service (and `keda`, read-only, for the autoscaler), allowed to WRITE events only to its own
 * streams (`<prefix>events:<service>:*`) and its own dead letter; it may read and acknowledge the
 * streams it consumes (consumer groups), and use its other keys (rate limits, timers, caches)
 * under the prefix. The gateway writes no event stream at all (its live channel only reads them).
 *
 *   npx tsx scripts/redis-acl.ts                      ACL SETUSER lines (passwords from REDIS_PASSWORD_<USER>)
 *   npx tsx scripts/redis-acl.ts --aclfile            the same as `user ...` lines of an ACL file
 *   npx tsx scripts/redis-acl.ts --prefix=htm: --template   an ACL file with @REDIS_PASSWORD_<USER>@ placeholders
 *                                                           (deploy/redis/users.acl.template; a test keeps it current)
 *
 * How it works: every user gets the commands that write stream contents (XADD, XTRIM, XDEL,
 * XSETID) and the ones that copy or move a key (COPY, RENAME, RENAMENX, MOVE) removed from its
 * root permissions, and given back by a selector limited to its own stream keys. Lua scripts
 * (EVAL, BullMQ) run under the same rules. See docs/operations.md, "Event bus credentials".
 */
import { pathToFileURL } from 'node:url';

export const REDIS_USERS = [
  'identity',
  'jobs',
  'payments',
  'admin',
  'notifications',
  'analytics',
  'gateway',
] as const;
export type RedisUser = (typeof REDIS_USERS)[number];

/** The commands that write a stream's entries, and those that could put a crafted key in its place. */
const STREAM_WRITES = ['xadd', 'xtrim', 'xdel', 'xsetid'];
const KEY_MOVES = ['copy', 'rename', 'renamenx', 'move'];
/** What ioredis and BullMQ need from @dangerous: INFO (ready check, version) and naming the connection. */
const DANGEROUS_ALLOWED = ['info', 'client|setname', 'client|getname', 'client|id', 'client|info'];

const glob = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** The streams a user may write: its own events and dead letter (+ BullMQ's and the live channel's own streams). */
export function ownStreamPatterns(user: RedisUser, prefix: string): string[] {
  const p = glob(prefix);
  if (user === 'gateway') return [`${p}live:*`, `${p}events:dlq:gateway-live`];
  return [
    `${p}events:${user}:*`,
    `${p}events:dlq:${user}`,
    ...(user === 'jobs' ? [`${p}bull:*`] : []),
  ];
}

/** The rules of one user (without its password). */
export function redisUserRules(user: RedisUser, prefix: string): string[] {
  const p = glob(prefix);
  return [
    'reset',
    'on',
    `~${p}*`,
    `&${p}*`,
    '+@all',
    '-@dangerous',
    ...DANGEROUS_ALLOWED.map((c) => `+${c}`),
    ...[...STREAM_WRITES, ...KEY_MOVES].map((c) => `-${c}`),
    `(${[...ownStreamPatterns(user, prefix).map((k) => `~${k}`), ...STREAM_WRITES.map((c) => `+${c}`)].join(' ')})`,
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
export const passwordVar = (u: RedisUser | 'ops' | 'keda') => `REDIS_PASSWORD_${u.toUpperCase()}`;

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
