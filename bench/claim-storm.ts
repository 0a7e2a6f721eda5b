/**
 * 3. Claim storm: 200 approved testers fire 5 claims each (1,000 at once, through the gateway,
 * from a second process)
 * at 50 paid open jobs. Exactly 50 claims win, every other answer is a 409, and the database
 * shows no job claimed twice and no tester holding more than MAX_ACTIVE_CLAIMS (1).
 * The baseline, in the same run: the same 200 testers first read their available jobs 5 times
 * each, 1,000 reads at once (what they do before claiming). Targets (#22 part 3): claim
 * throughput >= 0.5x that read throughput, claim p99 <= 2 s.
 */
import { spawn } from 'node:child_process';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { signInAdmin, signInTester, type Actor } from '../test/support/stack.js';
import { figure, isMain, pct, runAlone, spawnService, step, type Stack } from './support.js';

const NAME = 'claim-storm';

export async function run(stack: Stack): Promise<void> {
  const TESTERS = 200;
  const JOBS = 50;
  const PER_TESTER = 5;
  step(NAME, `signing in and approving ${TESTERS} testers`);
  const admin = await signInAdmin(stack);
  const testers: Actor[] = [];
  const stamp = Date.now();
  for (let i = 0; i < TESTERS; i += 20) {
    testers.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, TESTERS - i) }, (_, k) =>
          signInTester(stack, `bench.storm.${stamp}.${i + k}@gmail.com`, { admin, country: 'US' }),
        ),
      )),
    );
  }
  /**
   * Fires `shots` at once from a second process (bench/storm-client.mjs), as testers on their own
   * machines would: the marketplace's processes only serve. Answers with latencies, and the
   * storm's wall time.
   */
  const storm = async (
    base: string,
    list: Array<{ method: 'GET' | 'POST'; path: string; token: string }>,
  ) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('./storm-client.mjs', import.meta.url))],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    child.stdin.end(JSON.stringify({ base, shots: list }));
    const out = await text(child.stdout);
    return JSON.parse(out) as {
      wall: number;
      answers: Array<{ status: number; ms: number; code?: string }>;
    };
  };
  const latencies = (answers: Array<{ ms: number }>) =>
    answers.map((a) => a.ms).sort((a, b) => a - b);

  /** 50 fresh paid open jobs, the reads baseline, then the 1,000 claims, all through `base`. */
  const round = async (base: string, where: string) => {
    step(NAME, `${where}: ${JOBS} paid open jobs`);
    await stack.sql('TRUNCATE jobs.jobs, jobs.submissions, jobs.files');
    const jobIds = (
      await stack.sql<{ id: string }>(
        `INSERT INTO jobs.jobs (title, url, what_to_test, requirements, status, payment_status, paid_at, poster_id, geo_rule)
         SELECT 'Storm job ' || g, 'https://example.com/' || g, 'test it', '["check"]'::jsonb, 'open', 'paid', now(), 'poster-storm', 'global_beta'
         FROM generate_series(1, $1::int) g RETURNING id`,
        [JOBS],
      )
    ).map((r) => r.id);
    step(NAME, `${where}: baseline, ${TESTERS * PER_TESTER} available-jobs reads at once`);
    const reads = await storm(
      base,
      testers.flatMap((t) =>
        Array.from({ length: PER_TESTER }, () => ({
          method: 'GET' as const,
          path: '/api/tester/available-jobs?limit=20',
          token: t.token,
        })),
      ),
    );
    step(NAME, `${where}: ${TESTERS * PER_TESTER} claims at once`);
    const shots = testers.flatMap((t) => {
      const picks = new Set<string>();
      while (picks.size < PER_TESTER) picks.add(jobIds[Math.floor(Math.random() * JOBS)]);
      return [...picks].map((jobId) => ({ t, jobId }));
    });
    const claims = await storm(
      base,
      shots.map(({ t, jobId }) => ({
        method: 'POST' as const,
        path: `/api/jobs/${jobId}/claim`,
        token: t.token,
      })),
    );
    return { jobIds, reads, claims };
  };

  // As `npm start` runs it: every service and the gateway in this one process.
  const { jobIds, reads, claims } = await round(stack.url, 'all in one process');
  const readOk = reads.answers.filter((a) => a.status === 200).length;
  const readRate = (reads.answers.length / reads.wall) * 1000;
  const readMs = latencies(reads.answers);
  const { answers, wall } = claims;
  const claimRate = (answers.length / wall) * 1000;
  const wins = answers.filter((a) => a.status === 200).length;
  const conflicts = answers.filter((a) => a.status === 409).length;
  const other = answers.filter((a) => a.status !== 200 && a.status !== 409);
  const ms = latencies(answers);

  const claimed = await stack.sql<{ n: string; testers: string }>(
    `SELECT count(*) AS n, count(DISTINCT tester_id) AS testers FROM jobs.jobs WHERE status = 'claimed' AND id = ANY($1::uuid[])`,
    [jobIds],
  );
  const overHeld = await stack.sql<{ tester_id: string }>(
    `SELECT tester_id FROM jobs.jobs WHERE status = 'claimed' GROUP BY tester_id HAVING count(*) > 1`,
  );
  const claimEvents = await stack.sql<{ n: string; jobs: string }>(
    `SELECT count(*) AS n, count(DISTINCT subject) AS jobs FROM jobs.outbox WHERE type = 'JobClaimed' AND subject = ANY($1::text[])`,
    [jobIds],
  );

  // As deployed (docker-compose, Kubernetes): the gateway in its own process in front of the same services.
  const gateway = await spawnService('gateway', stack);
  let split: Awaited<ReturnType<typeof round>>;
  let floor: Awaited<ReturnType<typeof storm>>;
  try {
    await storm(
      gateway.url,
      testers.slice(0, 50).map((t) => ({
        method: 'GET' as const,
        path: '/api/tester/available-jobs?limit=20',
        token: t.token,
      })),
    ); // its first connections
    split = await round(gateway.url, 'gateway in its own process');
    step(
      NAME,
      `the machine's floor: ${TESTERS * PER_TESTER} GET /healthz at once to that gateway (no service behind it)`,
    );
    floor = await storm(
      gateway.url,
      testers.flatMap((t) =>
        Array.from({ length: PER_TESTER }, () => ({
          method: 'GET' as const,
          path: '/healthz',
          token: t.token,
        })),
      ),
    );
  } finally {
    await gateway.stop();
  }
  const splitMs = latencies(split.claims.answers);
  const splitReadMs = latencies(split.reads.answers);
  const splitWins = split.claims.answers.filter((a) => a.status === 200).length;
  const splitOther = split.claims.answers.filter(
    (a) => a.status !== 200 && a.status !== 409,
  ).length;
  const splitRatio =
    split.claims.answers.length /
    split.claims.wall /
    (split.reads.answers.length / split.reads.wall);
  const floorMs = latencies(floor.answers);

  figure(NAME, 'claims sent', answers.length);
  figure(NAME, 'wins (200)', wins, { text: `exactly ${JOBS}`, ok: wins === JOBS });
  figure(NAME, 'conflicts (409)', conflicts);
  figure(
    NAME,
    'other answers',
    other.length
      ? `${other.length} (${[...new Set(other.map((o) => `${o.status} ${o.code}`))].join(', ')})`
      : '0',
    { text: '0', ok: other.length === 0 },
  );
  figure(
    NAME,
    'jobs claimed in the DB / distinct testers holding them',
    `${claimed[0].n} / ${claimed[0].testers}`,
    {
      text: `${JOBS} / ${JOBS}`,
      ok: Number(claimed[0].n) === JOBS && Number(claimed[0].testers) === JOBS,
    },
  );
  figure(NAME, 'testers holding more than one claim', overHeld.length, {
    text: '0',
    ok: overHeld.length === 0,
  });
  figure(
    NAME,
    'JobClaimed events / distinct jobs',
    `${claimEvents[0].n} / ${claimEvents[0].jobs}`,
    {
      text: `${JOBS} / ${JOBS}`,
      ok: Number(claimEvents[0].n) === JOBS && Number(claimEvents[0].jobs) === JOBS,
    },
  );
  figure(
    NAME,
    'claim latency p50 / p99 / max (ms), all in one process',
    `${pct(ms, 50).toFixed(0)} / ${pct(ms, 99).toFixed(0)} / ${ms[ms.length - 1].toFixed(0)}`,
    { text: 'p99 <= 2000', ok: pct(ms, 99) <= 2000 },
  );
  figure(NAME, 'storm wall time (ms)', wall);
  figure(
    NAME,
    'baseline: available-jobs reads answered 200',
    `${readOk} of ${reads.answers.length}`,
    { text: 'all', ok: readOk === reads.answers.length },
  );
  figure(
    NAME,
    'baseline: read latency p50 / p99 (ms)',
    `${pct(readMs, 50).toFixed(0)} / ${pct(readMs, 99).toFixed(0)}`,
  );
  figure(
    NAME,
    'claims / s : reads / s (1,000 at once each)',
    `${claimRate.toFixed(0)} : ${readRate.toFixed(0)}`,
  );
  figure(NAME, 'claim throughput / read throughput', claimRate / readRate, {
    text: '>= 0.5',
    ok: claimRate / readRate >= 0.5,
  });
  figure(NAME, 'gateway in its own process: wins / other answers', `${splitWins} / ${splitOther}`, {
    text: `${JOBS} / 0`,
    ok: splitWins === JOBS && splitOther === 0,
  });
  figure(
    NAME,
    'gateway in its own process: claim latency p50 / p99 / max (ms)',
    `${pct(splitMs, 50).toFixed(0)} / ${pct(splitMs, 99).toFixed(0)} / ${splitMs[splitMs.length - 1].toFixed(0)}`,
    { text: 'p99 <= 2000', ok: pct(splitMs, 99) <= 2000 },
  );
  figure(
    NAME,
    'gateway in its own process: read latency p50 / p99 (ms)',
    `${pct(splitReadMs, 50).toFixed(0)} / ${pct(splitReadMs, 99).toFixed(0)}`,
  );
  figure(NAME, 'gateway in its own process: claim throughput / read throughput', splitRatio, {
    text: '>= 0.5',
    ok: splitRatio >= 0.5,
  });
  figure(
    NAME,
    "the machine's floor: 1,000 GET /healthz at once to that gateway, p50 / p99 (ms)",
    `${pct(floorMs, 50).toFixed(0)} / ${pct(floorMs, 99).toFixed(0)}`,
  );
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
