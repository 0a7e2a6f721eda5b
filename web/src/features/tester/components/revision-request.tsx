import type { JobView as Job } from '@htm/contracts/jobs';

/** What the poster asked to change: the reason, then the specific issues as a list. */
export function RevisionRequest({ review }: { review: Job['last_review'] }) {
  const issues = review?.specific_issues?.filter((i) => i.trim()) ?? [];
  return (
    <>
      <strong>Revision requested:</strong> {review?.reason || 'No reason given.'}
      {issues.length ? (
        <div>
          Specific issues:
          <ul>
            {issues.map((issue, i) => (
              <li key={i}>{issue}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
