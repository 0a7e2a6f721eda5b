import { LRUCache } from 'lru-cache';
import type { DbHandle, DbListener, Metrics } from '@htm/service-kit';

/** The Postgres channel the jobs schema's triggers notify on every change to jobs or users. */
export const JOBS_CHANGED_CHANNEL = 'jobs_changed';

/** A load under way and the generation it started in. */
type Loading = { generation: number; value: Promise<object> };

type CounterChild = ReturnType<ReturnType<Metrics['counter']>['labels']>;

/**
 * The hottest read, testers' list of available jobs, answered from memory while nothing has
 * changed: pages (already serialised) by geo rules, limit and cursor, and each tester's standing.
 *
 * Correct across processes: a Postgres trigger NOTIFYs on any write to jobs.jobs, jobs.users or
 * jobs.submissions (any replica, the timer worker, raw SQL) with the table's name, and this cache
 * empties what that table's change may alter (invalidate). While
 * the listening connection is down nothing is cached (every read goes to the database), and it
 * empties again when the connection comes back. Writes through this process also empty it when
 * their request ends. A read that started before a change never stores its answer
 * (generation check), and entries expire after `ttlMs` whatever happens.
 */
export class JobsReadCache {
  /** Bumped by every change that may alter pages / standings: a load started before one is not stored. */
  private readonly generation = { page: 0, standing: 0 };
  private listener: DbListener | undefined;
  private readonly pages: LRUCache<string, Buffer> | undefined;
  private readonly standings: LRUCache<string, object> | undefined;
  /** Loads under way, by kind and key, with the generation they started in (shared by reads that miss together). */
  private readonly loading = {
    page: new Map<string, Loading>(),
    standing: new Map<string, Loading>(),
  };
  /** Hit and miss counters by kind of entry, labelled once. */
  private readonly counts: Record<'page' | 'standing', { hit?: CounterChild; miss?: CounterChild }>;

  constructor(opts: { ttlMs: number; metrics?: Metrics }) {
    if (opts.ttlMs > 0) {
      this.pages = new LRUCache({ max: 2000, ttl: opts.ttlMs });
      this.standings = new LRUCache({ max: 50_000, ttl: opts.ttlMs });
    }
    const hits = opts.metrics?.counter(
      'jobs_read_cache_hits_total',
      'Reads answered from the jobs read cache',
      ['cache'],
    );
    const misses = opts.metrics?.counter(
      'jobs_read_cache_misses_total',
      'Reads the jobs read cache sent to the database',
      ['cache'],
    );
    const kind = (cache: string) => ({
      hit: hits?.labels({ cache }),
      miss: misses?.labels({ cache }),
    });
    this.counts = { page: kind('page'), standing: kind('standing') };
  }

  /** Starts listening for changes; without it the cache stays off. */
  async start(db: DbHandle): Promise<void> {
    if (!this.pages) return;
    this.listener = await db.listen(JOBS_CHANGED_CHANNEL, (table) => this.invalidate(table));
  }

  async stop(): Promise<void> {
    await this.listener?.close();
    this.listener = undefined;
    this.invalidate();
  }

  get active(): boolean {
    return !!this.pages && !!this.listener?.live;
  }

  /**
   * Empties what a change to `table` may have altered: a change to jobs alone (a claim, a payment,
   * a review) empties the pages; a tester's standing is built from users and submissions only, so
   * standings stay; a change to recordings alone empties nothing. Without a table (a lost
   * listener, an unknown payload) everything goes.
   */
  invalidate(table?: string): void {
    // No cached read uses recordings: a recording's PATCH (one every few seconds while a tester
    // records) keeps everything.
    if (table === 'recordings') return;
    this.generation.page++;
    // lru-cache's clear() walks all `max` slots even when empty (50,000 for standings): skip it then.
    if (this.pages?.size) this.pages.clear();
    if (table === 'jobs') return;
    this.generation.standing++;
    if (this.standings?.size) this.standings.clear();
  }

  /** A serialised page (the bytes of the answer, encoded once). */
  page(key: string, load: () => Promise<Buffer>): Promise<Buffer> {
    return this.through(this.pages, 'page', key, load);
  }

  /** A tester's standing (what the domain loads: the cache keeps it as it is, whatever its shape). */
  standing<S extends object>(key: string, load: () => Promise<S>): Promise<S> {
    return this.through(this.standings, 'standing', key, load) as Promise<S>;
  }

  /**
   * A hit, or the value loaded once: reads of one key that miss together share one load (a storm
   * of a tester's five claims, or a page everyone asks for, costs one set of queries), as long as
   * no change has come between. Only a load that started after the last change is stored.
   */
  private through<V extends object>(
    store: LRUCache<string, V> | undefined,
    kind: 'page' | 'standing',
    key: string,
    load: () => Promise<V>,
  ): Promise<V> {
    if (!store || !this.active) return load();
    const hit = store.get(key);
    if (hit !== undefined) {
      this.counts[kind].hit?.inc();
      return Promise.resolve(hit);
    }
    const generation = this.generation[kind];
    const loading = this.loading[kind].get(key);
    if (loading && loading.generation === generation) {
      this.counts[kind].hit?.inc();
      return loading.value as Promise<V>;
    }
    this.counts[kind].miss?.inc();
    const value = load();
    const entry = { generation, value };
    this.loading[kind].set(key, entry);
    const settle = () => {
      if (this.loading[kind].get(key) === entry) this.loading[kind].delete(key);
    };
    value.then((v) => {
      settle();
      if (generation === this.generation[kind] && this.active) store.set(key, v);
    }, settle);
    return value;
  }
}
