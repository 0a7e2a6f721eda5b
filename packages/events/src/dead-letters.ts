import type { EventBus } from './bus.js';
import type { RedisStreamsBus } from './redis-streams.js';

/**
 * Every consumer group of the marketplace: one per consuming service (ServiceEvents names its
 * group after the service) plus the jobs timer worker and the gateway's live channel. Published
 * names: a new consumer adds its group here so its dead letters show on the admin's Overview.
 */
export const CONSUMER_GROUPS = [
  'identity',
  'jobs',
  'payments',
  'admin',
  'notifications',
  'analytics',
  'site-check',
  'jobs-worker',
  'gateway-live',
] as const;

export interface DeadLetterCount {
  group: string;
  count: number;
}

const isRedis = (
  bus: EventBus,
): bus is EventBus & Pick<RedisStreamsBus, 'deadLetterCount' | 'redis' | 'prefix'> =>
  bus.kind === 'redis' && typeof (bus as Partial<RedisStreamsBus>).deadLetterCount === 'function';

/** The groups that may have dead letters: the known ones, and on Redis any other group that has some. */
async function groupsOf(bus: EventBus): Promise<string[]> {
  const groups = new Set<string>(CONSUMER_GROUPS);
  if (isRedis(bus)) {
    const head = `${bus.prefix}events:dlq:`;
    let cursor = '0';
    do {
      const [next, keys] = await bus.redis.scan(cursor, 'MATCH', `${head}*`, 'COUNT', 200);
      cursor = next;
      for (const k of keys) groups.add(k.slice(head.length));
    } while (cursor !== '0');
  }
  return [...groups];
}

/** Dead letters per consumer group (groups with none are left out), for the admin's Overview and alerts. */
export async function countDeadLetters(bus: EventBus): Promise<DeadLetterCount[]> {
  const out: DeadLetterCount[] = [];
  for (const group of await groupsOf(bus)) {
    const count = isRedis(bus)
      ? await bus.deadLetterCount(group)
      : (await bus.deadLetters(group, 10_000)).length;
    if (count > 0) out.push({ group, count });
  }
  return out;
}

/**
 * Every dead letter of every group handled again (consumers are idempotent). On Redis Streams each
 * group's own consumers do it (requestReplay: nothing is written to another service's stream, as
 * per-service Redis users forbid); on Kafka the letters go back on their topics. Returns how many per group.
 */
export async function replayAllDeadLetters(bus: EventBus): Promise<DeadLetterCount[]> {
  const out: DeadLetterCount[] = [];
  for (const { group } of await countDeadLetters(bus)) {
    const count = bus.requestReplay
      ? await bus.requestReplay(group)
      : await bus.replayDeadLetters(group);
    if (count > 0) out.push({ group, count });
  }
  return out;
}
