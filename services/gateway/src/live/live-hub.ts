/**
 * One gateway replica's open live streams. A single blocking reader follows the shared stream of
 * live messages and writes each to the matching connections of this replica only; nothing here
 * waits on the proxy path (its own Redis connection, writes never awaited, slow readers cut).
 */
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AppError, createBlockingRedis, type Caller, type RevocationList } from '@htm/service-kit';
import { LIVE_KEYS } from './live-feed.js';
import type { LiveMessage } from './live-messages.js';

export interface LiveHubOptions {
  redisUrl: string;
  prefix: string;
  logger: Logger;
  revoked?: RevocationList;
  /** A `: ping` comment this often on every stream. */
  pingMs: number;
  maxPerUser: number;
  maxTotal: number;
  /** Resume window (the feed keeps this much history). */
  historyMs: number;
  /** How often open streams are checked against revoked sessions and claims changes. */
  revocationCheckMs?: number;
}

interface Connection {
  caller: Caller;
  res: Response;
  /** Ends the stream when the access token behind its ticket expires. */
  expiry?: NodeJS.Timeout;
  /** Messages that arrived while the backlog of a resume was being read. */
  held?: Array<[string, LiveMessage]>;
}

type Entry = [id: string, fields: string[]];

/** A slow reader whose unsent bytes pass this is disconnected (it reconnects and resumes). */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const STREAM_ID = /^\d{1,16}-\d{1,10}$/;

/** Compares two stream ids ("ms-seq"). */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}

const frame = (id: string, m: LiveMessage) => `id: ${id}\nevent: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`;

function parseEntry(fields: string[]): LiveMessage | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== 'm') continue;
    try {
      return JSON.parse(fields[i + 1]) as LiveMessage;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export class LiveHub {
  private readonly all = new Set<Connection>();
  private readonly byUser = new Map<string, Set<Connection>>();
  private reader?: Redis;
  private history?: Redis;
  private running = false;
  private loop?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];
  private lastId = '0-0';

  constructor(private readonly opts: LiveHubOptions) {}

  get size(): number {
    return this.all.size;
  }

  /** Starts reading; never waits for Redis (the reader catches up once Redis answers). */
  start(): void {
    const { redisUrl, logger } = this.opts;
    this.reader = createBlockingRedis(redisUrl);
    this.history = createBlockingRedis(redisUrl);
    for (const c of [this.reader, this.history]) c.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis (live) error'));
    this.running = true;
    this.loop = this.run();
    this.timers.push(setInterval(() => this.ping(), this.opts.pingMs));
    this.timers.push(setInterval(() => this.closeRevoked(), this.opts.revocationCheckMs ?? 1000));
    for (const t of this.timers) t.unref();
  }

  private async run(): Promise<void> {
    const key = LIVE_KEYS.messages(this.opts.prefix);
    // Start after what is already there: older messages are only sent to a resuming client.
    const last = (await this.reader!.xrevrange(key, '+', '-', 'COUNT', 1).catch(() => [])) as Entry[];
    this.lastId = last[0]?.[0] ?? '0-0';
    while (this.running) {
      try {
        const res = (await this.reader!.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', key, this.lastId)) as Array<[string, Entry[]]> | null;
        for (const [, entries] of res ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            const m = parseEntry(fields);
            if (m) this.dispatch(id, m);
          }
        }
      } catch (err) {
        if (!this.running) break;
        this.opts.logger.warn({ err: (err as Error).message }, 'live reader error; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Whether a connection is in a message's audience. */
  private static admits(c: Caller, m: LiveMessage): boolean {
    const to = m.to;
    if (to.users.includes(c.id)) return true;
    if (to.admins && c.type === 'admin') return true;
    if (to.testers && c.type === 'tester' && c.approved) return to.testers === 'any' || (c.country !== null && to.testers.includes(c.country));
    return false;
  }

  private dispatch(id: string, m: LiveMessage): void {
    // Named users are found through the index; admins and testers by a scan (few kinds of message).
    const targets = new Set<Connection>();
    for (const u of m.to.users) for (const c of this.byUser.get(u) ?? []) targets.add(c);
    if (m.to.admins || m.to.testers) for (const c of this.all) if (LiveHub.admits(c.caller, m)) targets.add(c);
    for (const c of targets) this.send(c, id, m);
  }

  private send(c: Connection, id: string, m: LiveMessage): void {
    if (c.held) return void c.held.push([id, m]);
    this.write(c, frame(id, m));
  }

  private write(c: Connection, text: string): void {
    if (c.res.writableLength > MAX_BUFFERED_BYTES) {
      this.opts.logger.warn({ userId: c.caller.id }, 'live stream too slow: disconnected');
      return void c.res.destroy();
    }
    c.res.write(text);
  }

  private ping(): void {
    for (const c of this.all) this.write(c, ': ping\n\n');
  }

  /**
   * Ends streams whose session was revoked (`session_ended`: the client stops) or whose user's
   * claims changed (`account_changed`: the client refreshes its token, reloads the user and
   * reconnects, so messages follow the new approval or role).
   */
  private closeRevoked(): void {
    const revoked = this.opts.revoked;
    if (!revoked) return;
    for (const c of this.all) {
      if (c.caller.sid && revoked.isRevoked(c.caller.sid)) this.end(c, 'session_ended');
      else if (revoked.claimsChangedSince?.(c.caller.id, c.caller.claimsAt ?? 0)) this.end(c, 'account_changed');
    }
  }

  /** Tells the client why, then ends its stream. */
  private end(c: Connection, event: 'session_ended' | 'account_changed' | 'token_expired'): void {
    if (c.res.writableEnded) return;
    this.write(c, `event: ${event}\ndata: {}\n\n`);
    c.res.end();
  }

  /** Refuses (429) a connection over the per-user or total cap. */
  assertRoom(caller: Caller): void {
    if (this.all.size >= this.opts.maxTotal) throw new AppError('rate_limited', 'Too many live connections right now. The page still updates when you come back to it.', { code: 'too_many_streams' });
    if ((this.byUser.get(caller.id)?.size ?? 0) >= this.opts.maxPerUser) {
      throw new AppError('rate_limited', `You have ${this.opts.maxPerUser} live connections open already. Close a tab to open another.`, { code: 'too_many_streams' });
    }
  }

  /** Opens a stream on `res` for `caller`; resumes after `lastEventId` when given. */
  async open(caller: Caller, res: Response, lastEventId?: string): Promise<void> {
    this.assertRoom(caller);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      // no-transform keeps compression (and proxies) from buffering the stream.
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.socket?.setTimeout(0);
    const resume = lastEventId && STREAM_ID.test(lastEventId) ? lastEventId : undefined;
    const c: Connection = { caller, res, held: resume ? [] : undefined };
    // A stream outlives nothing: at the token's expiry it ends (`token_expired`) and the client
    // comes back with a fresh token and ticket, resuming after its last message.
    if (caller.expiresAt !== undefined) {
      c.expiry = setTimeout(() => this.end(c, 'token_expired'), Math.max(0, caller.expiresAt - Date.now()));
      c.expiry.unref();
    }
    this.all.add(c);
    let mine = this.byUser.get(caller.id);
    if (!mine) this.byUser.set(caller.id, (mine = new Set()));
    mine.add(c);
    res.on('close', () => {
      clearTimeout(c.expiry);
      this.all.delete(c);
      mine!.delete(c);
      if (!mine!.size && this.byUser.get(caller.id) === mine) this.byUser.delete(caller.id);
    });
    this.write(c, `retry: 3000\n: connected\n\n`);
    if (resume) await this.replay(c, resume);
  }

  /** Sends what `c` missed after `after`, then what arrived meanwhile, in order and once. */
  private async replay(c: Connection, after: string): Promise<void> {
    let sent = after;
    try {
      if (Number(after.split('-')[0]) < Date.now() - this.opts.historyMs) {
        // Older than the history: the client must reload what it shows.
        this.write(c, 'event: resync\ndata: {}\n\n');
      } else {
        const rows = (await this.history!.xrange(LIVE_KEYS.messages(this.opts.prefix), `(${after}`, '+')) as Entry[];
        for (const [id, fields] of rows) {
          const m = parseEntry(fields);
          if (m && LiveHub.admits(c.caller, m)) this.write(c, frame(id, m));
          sent = id;
        }
      }
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message }, 'live resume failed; asking the client to reload');
      this.write(c, 'event: resync\ndata: {}\n\n');
    }
    const held = c.held ?? [];
    c.held = undefined;
    for (const [id, m] of held) if (compareIds(id, sent) > 0) this.write(c, frame(id, m));
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const c of this.all) {
      clearTimeout(c.expiry);
      c.res.end();
    }
    this.all.clear();
    this.byUser.clear();
    this.reader?.disconnect();
    this.history?.disconnect();
    // A command queued while Redis was away may never settle: do not wait on it for long.
    await Promise.race([this.loop?.catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}
