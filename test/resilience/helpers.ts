/** Small helpers shared by the resilience tests (not a test file itself). */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Subscription } from '@htm/events';
import type { Stack } from '../support/stack.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { freePort } from '@htm/service-kit';

/** The live subscription of a service's consumers (ServiceEvents keeps it private). */
export function subscriptionOf(
  svc: Stack['jobs'] | Stack['payments'],
): Subscription & { kill(): Promise<void> } {
  const sub = (svc.ctx.events as unknown as { sub?: Subscription & { kill(): Promise<void> } }).sub;
  if (!sub) throw new Error('the service has no consumer subscription');
  return sub;
}

/**
 * Kills the service's consumer like a crashed process (no ack, no lease release) and waits until
 * the handler it was running when it died has finished: its transaction commits, its ack is lost.
 * (Waiting a fixed time instead is too short on a busy machine: the handled count then still grows.)
 */
export async function killConsumer(svc: Stack['jobs'] | Stack['payments']): Promise<void> {
  type Consumer = { loop?: Promise<void> };
  const bus = svc.ctx.bus as unknown as { consumers?: Set<Consumer> };
  if (!(bus.consumers instanceof Set))
    throw new Error('the service bus keeps no consumers (not Redis Streams?)');
  const before = [...bus.consumers];
  await subscriptionOf(svc).kill();
  const killed = before.filter((c) => !bus.consumers!.has(c));
  if (killed.length !== 1) throw new Error(`expected one killed consumer, found ${killed.length}`);
  await killed[0].loop?.catch(() => undefined);
}

/** Inserts `n` unpaid open jobs straight into jobs.jobs; returns their ids in order. */
export async function insertJobs(
  stack: Stack,
  n: number,
  opts: { paid?: boolean; posterId?: string; tag?: string } = {},
): Promise<string[]> {
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

export const count = async (stack: Stack, sql: string, params: unknown[] = []) =>
  Number((await stack.sql<{ n: string }>(sql, params))[0].n);

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
    const proc = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.proc = proc;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start on ${this.port}: ${out}`)),
        10_000,
      );
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

  /** SIGSTOP: the process hangs with its port open and its connections up (a frozen server). */
  freeze(): void {
    this.proc?.kill('SIGSTOP');
  }

  /** SIGCONT: the frozen server goes on where it stopped. */
  thaw(): void {
    this.proc?.kill('SIGCONT');
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

const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Runs a PostgreSQL tool as the postgres user when we are root (initdb refuses root); bench/own-postgres.ts uses it too. */
export function pgTool(tool: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', `${PG_BIN}/${tool}`, ...args]]
    : [`${PG_BIN}/${tool}`, args];
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${tool} exited ${code}: ${err}`)),
    );
  });
}

/**
 * A throwaway PostgreSQL 15 cluster on `port` in a temp dir (never the shared server): the
 * tests may restart or kill it. Owned by the postgres user when the tests run as root.
 */
export class PgCluster {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async create(port: number): Promise<PgCluster> {
    const { mkdtempSync, chownSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'htm-pg-'));
    if (process.getuid?.() === 0) {
      const { execFileSync } = await import('node:child_process');
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(dir, uid, gid);
    }
    const c = new PgCluster(dir, port);
    await pgTool('initdb', [
      '-D',
      `${dir}/data`,
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    await c.start();
    return c;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get options(): string {
    return `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  }

  start(): Promise<void> {
    return pgTool('pg_ctl', [
      '-D',
      `${this.dir}/data`,
      '-o',
      this.options,
      '-l',
      `${this.dir}/log`,
      '-w',
      'start',
    ]);
  }

  /** A restart as an operator or a failover does it: every connection dropped, the server away for a moment. */
  restart(): Promise<void> {
    return pgTool('pg_ctl', [
      '-D',
      `${this.dir}/data`,
      '-o',
      this.options,
      '-l',
      `${this.dir}/log`,
      '-m',
      'fast',
      '-w',
      'restart',
    ]);
  }

  async destroy(): Promise<void> {
    await pgTool('pg_ctl', ['-D', `${this.dir}/data`, '-m', 'immediate', '-w', 'stop']).catch(
      () => undefined,
    );
    const { rmSync } = await import('node:fs');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
