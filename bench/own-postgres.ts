/**
 * A PostgreSQL 15 server of the bench's own (initdb + pg_ctl in a temp dir, on the given port,
 * as test/resilience/helpers.ts does for the restart tests): the shared server of this machine
 * runs every engineer's tests and can be at its connection limit, which a soak of a dozen
 * processes, each with its pool, must not depend on (nor add to).
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pgTool } from '../test/resilience/helpers.js';
import { processes } from './support.js';

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** The server's processes now (the postmaster and its backends and workers), for CPU accounting. */
  pids(): number[];
  stop(): Promise<void>;
}

/**
 * Starts the server; `fsync: false` spares the shared disk (a soak), true keeps commits as costly
 * as in production (throughput); `statements` loads pg_stat_statements (CREATE EXTENSION is the
 * caller's) to see which queries cost more as a run goes on.
 */
export async function startOwnPostgres(
  port: number,
  opts: { fsync: boolean; maxConnections?: number; statements?: boolean },
): Promise<OwnPostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'htm-bench-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
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
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${opts.fsync ? 'on' : 'off'} -c max_connections=${opts.maxConnections ?? 300} -c shared_buffers=64MB${opts.statements ? ' -c shared_preload_libraries=pg_stat_statements' : ''}`;
  await pgTool('pg_ctl', ['-D', `${dir}/data`, '-o', options, '-l', `${dir}/log`, '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pids() {
      const postmaster = Number(readFileSync(`${dir}/data/postmaster.pid`, 'utf8').split('\n')[0]);
      return [
        postmaster,
        ...processes()
          .filter((p) => p.ppid === postmaster)
          .map((p) => p.pid),
      ];
    },
    async stop() {
      await pgTool('pg_ctl', ['-D', `${dir}/data`, '-m', 'fast', '-w', 'stop']).catch(
        () => undefined,
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
