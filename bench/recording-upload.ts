/**
 * Screen-recording uploads (issue #30): tus 1.0 PATCHes through the gateway of the all-in-one
 * process (as `npm start` runs it: gateway -> jobs -> @tus/server file store, with the tester's
 * rights checked on every PATCH) against a bare @tus/server with its file store in the same
 * process, same disk, same run. The uploads come from a second process (bench/upload-client.mjs).
 * Targets: one 200 MB upload reaches >= 0.7x the bare server's throughput, and 10 concurrent
 * 100 MB uploads grow the serving process's RSS by <= 64 MB (streams, never whole files in memory).
 * Also measured: a bare http-proxy hop in front of the bare tus server (what any gateway hop
 * costs on this machine), and the serving process's CPU time per MB of each (on a shared VM the
 * throughput follows the CPU a process gets; its CPU per MB does not depend on the load).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import httpProxy from 'http-proxy';
import { Server as TusServer } from '@tus/server';
import { FileStore } from '@tus/file-store';
import { client, signInAdmin, signInTester, type Actor } from '../test/support/stack.js';
import { deleteRecording } from '@htm/jobs/testing';
import { figure, isMain, note, rssMb, runAlone, sleep, step, type Stack } from './support.js';

const NAME = 'recording-upload';
const MB = 1024 * 1024;
/** What tus-js-client sends per PATCH once a recording has stopped (web/src/features/tester/recording.ts). */
const CHUNK = 5 * MB;

interface Answer {
  status: number;
  ms: number;
  bytes: number;
  patches: number;
  error?: string;
}

/** Runs the uploads at once from bench/upload-client.mjs. */
async function uploadFromClient(
  uploads: Array<{ base: string; path: string; token?: string; metadata?: string; size: number }>,
) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./upload-client.mjs', import.meta.url))],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  child.stdin.end(JSON.stringify({ uploads, chunk: CHUNK }));
  const r = JSON.parse(await text(child.stdout)) as { wall: number; answers: Answer[] };
  const bad = r.answers.filter((a) => a.status !== 204);
  if (bad.length) throw new Error(`uploads failed: ${JSON.stringify(bad.slice(0, 3))}`);
  return r;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export async function run(stack: Stack): Promise<void> {
  const deps = stack.jobs.deps;
  // Ten testers, each holding a paid job of their own (a tester holds one claim at a time).
  step(NAME, 'ten approved testers, each holding a job');
  const admin = await signInAdmin(stack);
  const stamp = Date.now();
  const testers: Actor[] = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      signInTester(stack, `bench.rec.${stamp}.${i}@gmail.com`, { admin, country: 'US' }),
    ),
  );
  const jobIds = (
    await stack.sql<{ id: string }>(
      `INSERT INTO jobs.jobs (title, url, what_to_test, requirements, status, payment_status, paid_at, poster_id, geo_rule)
       SELECT 'Recording job ' || g, 'https://example.com/' || g, 'test it', '["check"]'::jsonb, 'open', 'paid', now(), 'poster-rec', 'global_beta'
       FROM generate_series(1, 10) g RETURNING id`,
    )
  ).map((r) => r.id);
  for (let i = 0; i < 10; i++) {
    const r = await client(stack, testers[i].token).post(`/api/jobs/${jobIds[i]}/claim`, {});
    if (r.status !== 200) throw new Error(`claim answered ${r.status} ${JSON.stringify(r.body)}`);
  }
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const viaGateway = (i: number, size: number) => ({
    base: stack.url,
    path: '/api/recordings',
    token: testers[i].token,
    metadata: `job_id ${b64(jobIds[i])},filetype ${b64('video/webm')}`,
    size,
  });
  /** Lets the remux of finished recordings end, then deletes them (the disk is shared). */
  const cleanUp = async () => {
    await Promise.allSettled([...deps.recordingWork]);
    for (const { id } of await stack.sql<{ id: string }>('SELECT id FROM jobs.recordings'))
      await deleteRecording(deps, id);
  };

  // The baseline: a bare @tus/server with its file store, in this process, on the same disk.
  const bareDir = mkdtempSync(path.join(os.tmpdir(), 'bench-bare-tus-'));
  const bare = new TusServer({ path: '/files', datastore: new FileStore({ directory: bareDir }) });
  const bareHttp: Server = await new Promise((resolve) => {
    const s = createServer((req, res) => void bare.handle(req, res)).listen(0, '127.0.0.1', () =>
      resolve(s),
    );
  });
  const bareUrl = `http://127.0.0.1:${(bareHttp.address() as AddressInfo).port}`;
  const viaBare = (size: number) => ({ base: bareUrl, path: '/files', size });
  // A bare proxy hop (http-proxy, keep-alive upstream) in front of that bare server.
  const proxy = httpProxy.createProxyServer({
    target: bareUrl,
    agent: new (await import('node:http')).Agent({ keepAlive: true }),
  });
  const hopHttp: Server = await new Promise((resolve) => {
    const s = createServer((req, res) => proxy.web(req, res)).listen(0, '127.0.0.1', () =>
      resolve(s),
    );
  });
  const hopUrl = `http://127.0.0.1:${(hopHttp.address() as AddressInfo).port}`;
  const viaHop = (size: number) => ({ base: hopUrl, path: '/files', size });

  try {
    // One 200 MB upload, 9 rounds taking turns (each kind opens, sits in the middle of and closes
    // a round of three, in changing order): this shared VM's speed drifts (other jobs use its disk
    // and cores), so the medians are compared.
    const SIZE = 200 * MB;
    type Kind = 'bare' | 'hop' | 'ours';
    const rates: Record<Kind, number[]> = { bare: [], hop: [], ours: [] };
    const cpu: Record<Kind, number[]> = { bare: [], hop: [], ours: [] };
    const label: Record<Kind, string> = {
      bare: 'bare @tus/server',
      hop: 'bare http-proxy hop + bare @tus/server',
      ours: 'through the gateway',
    };
    for (const which of [
      'bare',
      'hop',
      'ours',
      'ours',
      'bare',
      'hop',
      'hop',
      'ours',
      'bare',
    ] as Kind[]) {
      step(NAME, `one 200 MB upload, ${label[which]} (load average ${load()})`);
      const c0 = process.cpuUsage();
      const r = await uploadFromClient([
        which === 'bare' ? viaBare(SIZE) : which === 'hop' ? viaHop(SIZE) : viaGateway(0, SIZE),
      ]);
      const c = process.cpuUsage(c0);
      rates[which].push(SIZE / MB / (r.wall / 1000));
      cpu[which].push((c.user + c.system) / 1000 / (SIZE / MB));
      if (which === 'ours') await cleanUp();
      else {
        rmSync(bareDir, { recursive: true, force: true });
        mkdirSync(bareDir, { recursive: true });
      }
    }
    const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
    const ratio = median(rates.ours) / median(rates.bare);
    const list = (a: number[], digits = 0) => a.map((x) => x.toFixed(digits)).join(', ');
    figure(
      NAME,
      'one 200 MB upload, bare @tus/server file store (MB/s, each round)',
      list(rates.bare),
    );
    figure(
      NAME,
      'one 200 MB upload, bare http-proxy hop in front of it (MB/s, each round)',
      list(rates.hop),
    );
    figure(
      NAME,
      'one 200 MB upload through the gateway, all in one process (MB/s, each round)',
      list(rates.ours),
    );
    figure(NAME, 'gateway / bare @tus/server throughput (medians of the rounds)', ratio, {
      text: '>= 0.7',
      ok: ratio >= 0.7,
    });
    figure(
      NAME,
      'bare hop / bare @tus/server throughput (medians)',
      median(rates.hop) / median(rates.bare),
    );
    figure(
      NAME,
      'CPU ms per MB of the serving process: bare / bare hop / gateway (medians)',
      `${median(cpu.bare).toFixed(2)} / ${median(cpu.hop).toFixed(2)} / ${median(cpu.ours).toFixed(2)}`,
    );
    figure(
      NAME,
      'bare @tus/server CPU per MB / gateway CPU per MB',
      median(cpu.bare) / median(cpu.ours),
    );

    // Ten 100 MB uploads at once: the serving process's RSS, sampled every 50 ms.
    await sleep(1000);
    global.gc?.();
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 50);
    step(
      NAME,
      `ten 100 MB uploads at once through the gateway (RSS before ${before.toFixed(0)} MB, load average ${load()})`,
    );
    let wall: number;
    try {
      ({ wall } = await uploadFromClient(testers.map((_, i) => viaGateway(i, 100 * MB))));
    } finally {
      clearInterval(sampler);
    }
    const rows = await stack.sql<{ n: number; bytes: string }>(
      "SELECT count(*)::int AS n, coalesce(sum(size_bytes), 0)::text AS bytes FROM jobs.recordings WHERE status = 'complete'",
    );
    figure(
      NAME,
      'ten 100 MB uploads at once: finished recordings / bytes',
      `${rows[0].n} / ${(Number(rows[0].bytes) / MB).toFixed(0)} MB`,
      { text: '10 / 1000 MB', ok: rows[0].n === 10 && Number(rows[0].bytes) === 1000 * MB },
    );
    figure(NAME, 'ten 100 MB uploads at once: aggregate throughput (MB/s)', 1000 / (wall / 1000));
    figure(
      NAME,
      'ten 100 MB uploads at once: RSS growth of the serving process (MB, peak - before)',
      peak - before,
      { text: '<= 64', ok: peak - before <= 64 },
    );
    note(
      NAME,
      'machine load while measuring',
      `load average (1, 5, 15 min) at the end: ${load()} on ${os.cpus().length} cores`,
    );
    await cleanUp();
  } finally {
    await new Promise<void>((resolve) => bareHttp.close(() => resolve()));
    await new Promise<void>((resolve) => hopHttp.close(() => resolve()));
    proxy.close();
    rmSync(bareDir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
