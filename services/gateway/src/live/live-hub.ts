/**
 * One gateway replica's open live streams. A single blocking reader follows the shared stream of
 * live messages and writes each to the matching connections of this replica only; nothing here
 * waits on the proxy path (its own Redis connection, writes never awaited, slow readers cut).
 */
import type { ServerResponse } from 'node:http';
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
  /** How often open streams are checked against their token's expiry, revoked sessions and claims changes. */
  revocationCheckMs?: number;
}

interface Connection {
  caller: Caller;
  res: ServerResponse;
  /** When something was last written (a heartbeat goes only to streams quiet for a while). */
  lastWrite: number;
  /** Messages that arrived while the backlog of a resume was being read. */
  held?: Array<[string, LiveMessage]>;
}

type Entry = [id: string, fields: string[]];

/** A slow reader whose unsent bytes pass this is disconnected (it reconnects and resumes). */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const STREAM_ID = /^\d{1,16}-\d{1,10}$/;
const PING = Buffer.from(': ping\n\n');

/** Compares two stream ids ("ms-seq"). */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}

const frame = (id: string, m: LiveMessage) =>
  `id: ${id}\nevent: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`;

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
  /** Admins' connections, and approved testers' by country: a broadcast reaches its audience without a scan of every stream. */
  private readonly admins = new Set<Connection>();
  private readonly testersByCountry = new Map<string, Set<Connection>>();
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
    for (const c of [this.reader, this.history])
      c.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis (live) error'));
    this.running = true;
    this.loop = this.run();
    this.timers.push(setInterval(() => this.ping(), this.opts.pingMs));
    this.timers.push(setInterval(() => this.sweep(), this.opts.revocationCheckMs ?? 1000));
    for (const t of this.timers) t.unref();
  }

  private async run(): Promise<void> {
    const key = LIVE_KEYS.messages(this.opts.prefix);
    // Start after what is already there: older messages are only sent to a resuming client.
    const last = (await this.reader!.xrevrange(key, '+', '-', 'COUNT', 1).catch(
      () => [],
    )) as Entry[];
    this.lastId = last[0]?.[0] ?? '0-0';
    while (this.running) {
      try {
        const res = (await this.reader!.xread(
          'COUNT',
          500,
          'BLOCK',
          1000,
          'STREAMS',
          key,
          this.lastId,
        )) as Array<[string, Entry[]]> | null;
        // One write per stream per read: the frames of a batch for one stream are joined first
        // (under load a read returns many messages; a write each would be a syscall each).
        const out = new Map<Connection, Buffer[]>();
        for (const [, entries] of res ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            const m = parseEntry(fields);
            if (m) this.dispatch(id, m, out);
          }
        }
        for (const [c, bufs] of out)
          this.write(c, bufs.length === 1 ? bufs[0] : Buffer.concat(bufs));
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
    if (to.testers && c.type === 'tester' && c.approved)
      return to.testers === 'any' || (c.country !== null && to.testers.includes(c.country));
    return false;
  }

  /** The group of `c` in the broadcast indexes (admins, or approved testers of its country), if any. */
  private groupOf(c: Caller): Set<Connection> | undefined {
    if (c.type === 'admin') return this.admins;
    if (c.type !== 'tester' || !c.approved) return undefined;
    // A tester without a country gets only messages for every tester ('any'): its key matches no listed country.
    const key = c.country ?? '';
    let g = this.testersByCountry.get(key);
    if (!g) this.testersByCountry.set(key, (g = new Set()));
    return g;
  }

  /** Adds message `m` to the text `out` holds for each of its receivers (held back during a resume). */
  private dispatch(id: string, m: LiveMessage, out: Map<Connection, Buffer[]>): void {
    // Named users through the user index, admins and testers through theirs: no scan of every
    // stream, and the frame is serialised once for all of its receivers.
    const to = m.to;
    const targets = new Set<Connection>();
    for (const u of to.users) for (const c of this.byUser.get(u) ?? []) targets.add(c);
    if (to.admins) for (const c of this.admins) targets.add(c);
    if (to.testers) {
      const groups =
        to.testers === 'any'
          ? [...this.testersByCountry.values()]
          : to.testers.map((k) => this.testersByCountry.get(k));
      for (const g of groups) for (const c of g ?? []) targets.add(c);
    }
    if (!targets.size) return;
    // Encoded once: a broadcast to thousands of streams writes the same bytes to each.
    const bytes = Buffer.from(frame(id, m));
    for (const c of targets) {
      if (c.held) c.held.push([id, m]);
      else {
        const list = out.get(c);
        if (list) list.push(bytes);
        else out.set(c, [bytes]);
      }
    }
  }

  private write(c: Connection, text: string | Buffer): void {
    if (c.res.writableLength > MAX_BUFFERED_BYTES) {
      this.opts.logger.warn({ userId: c.caller.id }, 'live stream too slow: disconnected');
      return void c.res.destroy();
    }
    c.lastWrite = Date.now();
    c.res.write(text);
  }

  /** A heartbeat on every stream nothing was written to in the last half interval (a busy stream needs none). */
  private ping(): void {
    const quiet = Date.now() - this.opts.pingMs / 2;
    for (const c of this.all) if (c.lastWrite <= quiet) this.write(c, PING);
  }

  /**
   * Ends streams whose access token expired (`token_expired`: the client comes back with a fresh
   * token and ticket, resuming after its last message), whose session was revoked
   * (`session_ended`: the client stops) or whose user's claims changed (`account_changed`: the
   * client refreshes its token, reloads the user and reconnects, so messages follow the new
   * approval or role). One sweep for all streams instead of a timer each.
   */
  private sweep(): void {
    const revoked = this.opts.revoked;
    const now = Date.now();
    for (const c of this.all) {
      if (c.caller.expiresAt !== undefined && c.caller.expiresAt <= now)
        this.end(c, 'token_expired');
      else if (c.caller.sid && revoked?.isRevoked(c.caller.sid)) this.end(c, 'session_ended');
      else if (revoked?.claimsChangedSince?.(c.caller.id, c.caller.claimsAt ?? 0))
        this.end(c, 'account_changed');
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
    if (this.all.size >= this.opts.maxTotal)
      throw new AppError(
        'rate_limited',
        'Too many live connections right now. The page still updates when you come back to it.',
        { code: 'too_many_streams' },
      );
    if ((this.byUser.get(caller.id)?.size ?? 0) >= this.opts.maxPerUser) {
      throw new AppError(
        'rate_limited',
        `You have ${this.opts.maxPerUser} live connections open already. Close a tab to open another.`,
        { code: 'too_many_streams' },
      );
    }
  }

  /**
   * Opens a stream on `res` for `caller`; resumes after `lastEventId` when given. `res` is a plain
   * node response (the stream is opened outside express, live.routes.ts) or express's.
   */
  async open(caller: Caller, res: ServerResponse, lastEventId?: string): Promise<void> {
    this.assertRoom(caller);
    // The client left while its ticket was redeemed: nothing to hold (its 'close' has been and gone).
    // The request's socket, not res.socket: on a kept-alive connection a response waits without a
    // socket until the one before it (the ticket's answer) has finished.
    const socket = res.req.socket;
    if (socket.destroyed) return;
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    // no-transform keeps compression (and proxies) from buffering the stream.
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    socket.setNoDelay(true);
    socket.setTimeout(0);
    const resume = lastEventId && STREAM_ID.test(lastEventId) ? lastEventId : undefined;
    // A stream outlives nothing: the sweep ends it at its token's expiry (within revocationCheckMs).
    const c: Connection = { caller, res, lastWrite: 0, held: resume ? [] : undefined };
    this.all.add(c);
    let mine = this.byUser.get(caller.id);
    if (!mine) this.byUser.set(caller.id, (mine = new Set()));
    mine.add(c);
    const group = this.groupOf(caller);
    group?.add(c);
    res.on('close', () => {
      this.all.delete(c);
      group?.delete(c);
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
        const rows = (await this.history!.xrange(
          LIVE_KEYS.messages(this.opts.prefix),
          `(${after}`,
          '+',
        )) as Entry[];
        for (const [id, fields] of rows) {
          const m = parseEntry(fields);
          if (m && LiveHub.admits(c.caller, m)) this.write(c, frame(id, m));
          sent = id;
        }
      }
    } catch (err) {
      this.opts.logger.warn(
        { err: (err as Error).message },
        'live resume failed; asking the client to reload',
      );
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
    for (const c of this.all) c.res.end();
    this.all.clear();
    this.byUser.clear();
    this.admins.clear();
    this.testersByCountry.clear();
    this.reader?.disconnect();
    this.history?.disconnect();
    // A command queued while Redis was away may never settle: do not wait on it for long.
    await Promise.race([
      this.loop?.catch(() => undefined),
      new Promise((r) => setTimeout(r, 1000).unref()),
    ]);
  }
}
