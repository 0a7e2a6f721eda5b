/** Small helpers shared by the resilience tests (not a test file itself). */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Subscription } from '@htm/events';
import type { Stack } from '../support/stack.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { freePort } from '@htm/service-kit';

/** The live subscription of a service's consumers (ServiceEvents keeps it private). */
export function subscriptionOf(svc: Stack['jobs'] | Stack['payments']): Subscription & { kill(): Promise<void> } {
  const sub = (svc.ctx.events as unknown as { sub?: Subscription & { kill(): Promise<void> } }).sub;
  if (!sub) throw new Error('the service has no consumer subscription');
  return sub;
}

/** Inserts `n` unpaid open jobs straight into jobs.jobs; returns their ids in order. */
export async function insertJobs(stack: Stack, n: number, opts: { paid?: boolean; posterId?: string; tag?: string } = {}): Promise<string[]> {
  const rows = await stack.sql<{ id: string }>(
    `INSERT INTO jobs.jobs (title, url, what_to_test, requirements, status, payment_status, poster_id, geo_rule, created_at)
     SELECT $2 || ' ' || g, 'https://example.com/' || g, 'test it', '["check"]'::jsonb, 'open', $3, $4, 'global_beta',
            now() - (g || ' milliseconds')::interval
     FROM generate_series(1, $1::int) AS g
     RETURNING id`,
    [n, opts.tag ?? 'job', opts.paid ? 'paid' : 'unpaid', opts.posterId ?? 'poster-bulk'],
  );
  return rows.map((r) => r.id);
}

export const count = async (stack: Stack, sql: string, params: unknown[] = []) => Number((await stack.sql<{ n: string }>(sql, params))[0].n);

/** A throwaway redis-server child on `port` (no persistence): the tests may kill it. */
export class RedisChild {
  private proc?: ChildProcess;
  constructor(readonly port: number) {}

  get running(): boolean {
    return !!this.proc && this.proc.exitCode === null;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${this.port}: ${out}`)), 10_000);
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${out}`));
      });
    });
    proc.stdout!.resume();
    proc.stderr!.resume();
  }

  /** SIGKILL, like a crashed server; resolves once the process is gone. */
  async kill(): Promise<void> {
    const p = this.proc;
    this.proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  }
}
