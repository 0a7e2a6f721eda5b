import { PROOF_MIN_TESTS, type PublicProofResponse } from '@htm/contracts';
import type { Db } from '@htm/service-kit/db';
import { deliveredTotal, histogramAllTime } from '../db/insights.repository.js';
import { percentile } from './histogram.js';

/**
 * The landing page's live proof from the whole history: tests delivered and the median time
 * from payment to a first result. Null until both rest on at least PROOF_MIN_TESTS jobs.
 */
export async function getPublicProof(db: Db): Promise<PublicProofResponse> {
  const [delivered, results] = await Promise.all([
    deliveredTotal(db),
    histogramAllTime(db, 'result'),
  ]);
  const measured = results.reduce((s, [, c]) => s + c, 0);
  const median = percentile(results, 0.5);
  if (delivered < PROOF_MIN_TESTS || measured < PROOF_MIN_TESTS || median === null)
    return { proof: null };
  return {
    proof: {
      tests_delivered: delivered,
      median_hours_to_first_result: Math.round(median / 360_000) / 10,
    },
  };
}
