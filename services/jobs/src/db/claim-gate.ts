/** The Postgres channel of the job status notices (migration 0008_notify_job_status). */
export const JOB_STATUS_CHANNEL = 'job_status';

/** The most jobs remembered as claimed; past it the memory starts again empty (a bound, not a cache policy). */
const MAX_REMEMBERED = 100_000;

/**
 * Claims of one job, in one process, take turns; a claim that was waiting while another claim of
 * the same job won lost the race and is answered at once, without touching the database.
 *
 * With the job status notices on (`followStatusNotices`: the jobs table's trigger reports every
 * status change of a job, from any process), the gate also remembers which jobs are claimed: a
 * claim of one of them is answered 409 job_taken at once, which is exactly what the database
 * would answer for a claimed job. A job leaves that memory on any notice of another status
 * (submitted, reopened by a timeout, completed, deleted), and the whole memory goes when the
 * notices may have been missed (the listening connection lost or back).
 *
 * The database's conditional UPDATE stays the one judge across processes (replicas, the admin's
 * assign): this gate only spares the losers of a storm their job read and their transaction.
 * A claim that queued behind one that failed for its own reasons (not approved, holds a job
 * already, wrong country) runs its own attempt.
 */
export class ClaimGate {
  /** The last claim queued for each job: the next one waits for it. */
  private readonly tails = new Map<string, Promise<boolean>>();
  /** Jobs whose last known status is claimed (only while `noticesLive()`). */
  private readonly claimed = new Set<string>();
  /** Counts notices of any status but claimed: a win that raced one is not remembered. */
  private forgets = 0;
  private noticesLive: () => boolean = () => false;

  /** `onLost` runs for each claim refused here without a database read (a metric in main.ts). */
  constructor(private readonly onLost?: () => void) {}

  /** Remembers claimed jobs while `live()` says the job status notices arrive (see the class comment). */
  followStatusNotices(live: () => boolean): void {
    this.noticesLive = live;
    this.forgetAll();
  }

  /**
   * A job status notice, `<jobId>:<status>`; without one (or `*`), anything may have changed.
   */
  statusNotice(payload?: string): void {
    const at = payload?.lastIndexOf(':') ?? -1;
    if (!payload || at < 0) return this.forgetAll();
    const jobId = payload.slice(0, at);
    if (payload.slice(at + 1) === 'claimed') this.remember(jobId);
    else {
      this.claimed.delete(jobId);
      this.forgets++;
    }
  }

  private forgetAll(): void {
    this.claimed.clear();
    this.forgets++;
  }

  private remember(jobId: string): void {
    if (!this.noticesLive()) return;
    if (this.claimed.size >= MAX_REMEMBERED) this.claimed.clear();
    this.claimed.add(jobId);
  }

  /**
   * Runs `attempt` for `jobId` after the claims already queued for it. If one of them won while
   * this one waited, `lost()` is thrown instead (the attempt never runs).
   */
  async run<T>(jobId: string, attempt: () => Promise<T>, lost: () => Error): Promise<T> {
    if (this.claimed.has(jobId) && this.noticesLive()) {
      this.onLost?.();
      throw lost();
    }
    const forgetsBefore = this.forgets;
    const before = this.tails.get(jobId);
    let settle!: (won: boolean) => void;
    const mine = new Promise<boolean>((resolve) => (settle = resolve));
    // The chain carries "someone queued won": once true it stays true for everyone behind.
    const tail = before ? Promise.all([before, mine]).then(([a, b]) => a || b) : mine;
    this.tails.set(jobId, tail);
    try {
      if (before && (await before)) {
        settle(true);
        this.onLost?.();
        throw lost();
      }
      let won = false;
      try {
        const result = await attempt();
        won = true;
        // Claimed now; unless a notice since may have told of a later change.
        if (this.forgets === forgetsBefore) this.remember(jobId);
        return result;
      } finally {
        settle(won);
      }
    } finally {
      // The last in the queue leaves no entry behind once everything before it has settled.
      void tail.then(() => {
        if (this.tails.get(jobId) === tail) this.tails.delete(jobId);
      });
    }
  }

  /** Jobs with claims queued or running (for tests and metrics). */
  get busyJobs(): number {
    return this.tails.size;
  }
}
