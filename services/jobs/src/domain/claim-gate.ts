/**
 * Claims of one job, in one process, take turns; a claim that was waiting while another claim of
 * the same job won lost the race and is answered at once, without touching the database.
 *
 * The database's conditional UPDATE stays the one judge across processes (replicas, the admin's
 * assign): this gate only spares the losers of a storm their job read and their transaction.
 * A claim that queued behind one that failed for its own reasons (not approved, holds a job
 * already, wrong country) runs its own attempt. Only claims that overlapped a winning claim are
 * refused here; a claim arriving after the winner finished reads the job as before.
 */
export class ClaimGate {
  /** The last claim queued for each job: the next one waits for it. */
  private readonly tails = new Map<string, Promise<boolean>>();

  /** `onLost` runs for each claim refused here without a database read (a metric in main.ts). */
  constructor(private readonly onLost?: () => void) {}

  /**
   * Runs `attempt` for `jobId` after the claims already queued for it. If one of them won while
   * this one waited, `lost()` is thrown instead (the attempt never runs).
   */
  async run<T>(jobId: string, attempt: () => Promise<T>, lost: () => Error): Promise<T> {
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
