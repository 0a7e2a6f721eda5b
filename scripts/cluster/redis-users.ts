/**
 * The cluster's Redis users (scripts/redis-acl.ts): one per service, created for this run with
 * random passwords and removed at stop, so every process talks to Redis as its own service, as in
 * production: a service that tries to write another service's event stream gets NOPERM.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { aclSetUserArgs, REDIS_USERS, type RedisUser } from '../redis-acl.js';

export interface BusUsers {
  /** REDIS_URL of a service's user. */
  urlFor(user: RedisUser): string;
  names: Record<RedisUser, string>;
  remove(): Promise<void>;
}

/** Creates the users with the connection of `redisUrl` (it must be allowed ACL SETUSER). */
export async function createBusUsers(redisUrl: string, prefix: string): Promise<BusUsers> {
  const tag = randomBytes(4).toString('hex');
  const names = Object.fromEntries(REDIS_USERS.map((u) => [u, `htm-${tag}-${u}`])) as Record<
    RedisUser,
    string
  >;
  const passwords = Object.fromEntries(
    REDIS_USERS.map((u) => [u, randomBytes(24).toString('base64url')]),
  ) as Record<RedisUser, string>;
  const admin = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 3000 });
  try {
    for (const args of aclSetUserArgs(prefix, passwords, (u) => names[u]))
      await admin.call('ACL', ...args);
  } finally {
    admin.disconnect();
  }
  return {
    names,
    urlFor(user) {
      const url = new URL(redisUrl);
      url.username = names[user];
      url.password = passwords[user];
      return url.toString();
    },
    async remove() {
      const c = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 3000 });
      try {
        await c.call('ACL', 'DELUSER', ...Object.values(names));
      } finally {
        c.disconnect();
      }
    },
  };
}
