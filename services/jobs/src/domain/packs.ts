import { AppError, type Caller } from '@htm/service-kit';
import { type FindingSeverity, type PackCluster, type PackSummary } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { JobRow } from '../db/schema.js';
import {
  currentSubmissions,
  findPack,
  listPackJobs,
  packsOfTester,
} from '../db/pack.repository.js';
import { clusterFindings, type PackFinding } from './finding-clusters.js';
import { decisionsOf } from './summaries.js';

/** A pack as its poster (or the admin) reads it: progress, slots and what the testers agree on. */
export interface PackRead {
  pack: PackSummary;
  jobs: JobRow[];
  /** Testers whose reports are in and not held: the "N" of "n of N" (the summary's testers_total). */
  reported: number;
  clusters: PackCluster[];
}

/** Slots by state: claimed means taken by a tester now or before (claimed, submitted, revision, completed). */
export function packProgress(
  id: string,
  size: number,
  slots: Pick<JobRow, 'status'>[],
): PackSummary {
  const count = (...statuses: string[]) => slots.filter((j) => statuses.includes(j.status)).length;
  return {
    id,
    size,
    claimed: count('claimed', 'submitted', 'revision_requested', 'completed'),
    submitted: count('submitted', 'revision_requested', 'completed'),
    completed: count('completed'),
    closed: count('closed'),
  };
}

/**
 * GET /api/packs/:id: the poster of the pack or the admin (anyone else 403, an unknown pack 404).
 * Clusters group the key findings of each slot's current submission (the texts the poster sees
 * in the preview already) across testers, with the testers' "same problem" answers and the
 * owner's merge / split applied first (the same grouping as the pack's summary).
 */
export async function readPack(
  deps: Pick<JobsDeps, 'db' | 'lexicon'>,
  caller: Caller,
  packId: string,
): Promise<PackRead> {
  const pack = await findPack(deps.db, packId);
  if (!pack) throw AppError.notFound('Pack not found.', 'pack_not_found');
  if (caller.type !== 'admin' && pack.posterId !== caller.id)
    throw AppError.forbidden('Only the poster of this pack can see it.', 'not_pack_poster');
  const slots = await listPackJobs(deps.db, pack.id);
  const subs = await currentSubmissions(deps.db, slots);
  const findings: PackFinding[] = subs.flatMap((s) =>
    s.keyFindings.map((text, i) => ({
      jobId: s.jobId,
      submissionId: s.id,
      index: i,
      text,
      severity: (s.findingDetails[i]?.severity ?? null) as FindingSeverity | null,
    })),
  );
  return {
    pack: packProgress(pack.id, pack.size, slots),
    jobs: slots,
    reported: new Set(subs.map((s) => s.jobId)).size,
    clusters: clusterFindings(
      findings,
      deps.lexicon,
      await decisionsOf(
        deps,
        pack.id,
        subs.map((s) => s.id),
      ),
    ),
  };
}

/** Packs the tester holds or held a slot of: their available jobs leave them out. */
export function packsHeldBy(deps: Pick<JobsDeps, 'db'>, testerId: string): Promise<string[]> {
  return packsOfTester(deps.db, testerId);
}
