import type { SubmissionView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';
import jobCard from '../../../components/job-card.module.css';

const releasedReportsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs/:id/released-reports: reports released after the job went to another tester. */
    getReleasedReports: build.query<{ reports: SubmissionView[] }, string>({
      query: (jobId) => ({ url: `/jobs/${encodeURIComponent(jobId)}/released-reports` }),
      providesTags: (_r, _e, id) => [{ type: 'Submission', id }],
    }),
  }),
});
export const { useGetReleasedReportsQuery } = releasedReportsApi;

/**
 * On a replaced job's card: the reports that failed their check and were released after all (an
 * upheld appeal) once the job had gone to another tester. The owner reads each whole, at no cost
 * (the platform pays its tester). Nothing shows while there is none.
 */
export function ReleasedReports({ jobId }: { jobId: string }) {
  const { data } = useGetReleasedReportsQuery(jobId);
  const reports = data?.reports ?? [];
  if (!reports.length) return null;
  return (
    <details className={jobCard['job-card__meta']}>
      <summary>
        {reports.length === 1
          ? 'One more report, free: released after its tester’s appeal'
          : `${reports.length} more reports, free: released after their testers’ appeals`}
      </summary>
      {reports.map((r) => (
        <section key={r.id} aria-label={`Released report by ${r.submitted_by_snapshot.name}`}>
          <p className="muted">
            By {r.submitted_by_snapshot.name}. Our automatic check held this report back, and the
            admin found it was fine after all. It costs you nothing.
          </p>
          <ul>
            {r.human_preview.key_findings_bullets.map((k, i) => (
              <li key={i}>{k}</li>
            ))}
          </ul>
          {r.general_feedback ? <p dir="auto">{r.general_feedback}</p> : null}
          {r.requirement_responses?.length ? (
            <ul aria-label="Answers to the things to check">
              {r.requirement_responses.map((a) => (
                <li key={a.requirement_index} dir="auto">
                  {a.response_text}
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      ))}
    </details>
  );
}
