import { useState } from 'react';
import { useController, useFormContext, useFormState } from 'react-hook-form';
import { JOB_LIMITS, rateJobBodySchema, type RateJobBody } from '@htm/contracts/jobs';
import { FormMessage } from '../../../components/field';
import {
  errorText,
  formSchema,
  SchemaForm,
  showServerErrors,
  SubmitButton,
  TextArea,
  useSchemaForm,
} from '../../../components/schema-form';
import { errorMessage, errorStatus, serverFieldErrors } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import type { JobView as Job } from '@htm/contracts/jobs';
import { useRateJobMutation } from '../api/rate-job';
import styles from './rate-tester.module.css';
import choice from '../../../components/choice.module.css';

const STARS = [1, 2, 3, 4, 5] as const;

interface RatingValues {
  stars: number | null;
  comment: string;
}

/** POST /api/jobs/:id/rating's schema ('Stars must be a whole number from 1 to 5'). */
const ratingSchema = formSchema(
  (v: RatingValues) => ({ stars: v.stars ?? undefined, comment: v.comment }),
  rateJobBodySchema,
);

/** The stars, drawn as stars; each is a native radio (arrow keys move, the name says "3 stars"). */
function StarsField() {
  const {
    field: { ref: attach, value, onChange },
  } = useController<RatingValues, 'stars'>({ name: 'stars' });
  const { errors } = useFormState<RatingValues>({ name: 'stars' });
  const { clearErrors } = useFormContext<RatingValues>();
  const error = errorText(errors, 'stars');
  return (
    <fieldset className={choice.group}>
      <legend>Rate the tester</legend>
      <div className={styles.rating__stars}>
        {STARS.map((n) => {
          const on = value !== null && n <= value;
          return (
            <label className={`${styles.star}${on ? ` ${styles['star--on']}` : ''}`} key={n}>
              <input
                className="sr-only"
                type="radio"
                ref={n === 1 ? attach : undefined}
                name="stars"
                value={n}
                checked={value === n}
                onChange={() => {
                  onChange(n);
                  clearErrors('stars');
                }}
                aria-label={`${n} ${n === 1 ? 'star' : 'stars'}`}
              />
              <span className={styles.star__glyph} aria-hidden="true">
                {on ? '★' : '☆'}
              </span>
            </label>
          );
        })}
      </div>
      {error ? <div className="field__error">{error}</div> : null}
    </fieldset>
  );
}

/** On the results screen of a completed job: the poster rates the tester once (stars + comment). */
export function RateTester({ job }: { job: Job }) {
  const form = useSchemaForm(ratingSchema, { stars: null, comment: '' });
  const comment = form.watch('comment');
  const [formError, setFormError] = useState<string | null>(null);
  const [rate, { data }] = useRateJobMutation();
  const { status } = useNotify();
  const rating = job.rating ?? data?.rating ?? null;

  if (rating) {
    return (
      <section className={styles.rating} aria-label="Your rating">
        <h3>Your rating</h3>
        <p>
          <span aria-hidden="true">
            {'★'.repeat(rating.stars)}
            {'☆'.repeat(5 - rating.stars)}
          </span>{' '}
          <span>You rated this tester {rating.stars} out of 5.</span>
        </p>
        {rating.comment ? <p className="prewrap muted">{rating.comment}</p> : null}
      </section>
    );
  }

  const submit = async (body: RateJobBody) => {
    const res = await rate({ jobId: job.id, ...body });
    if ('error' in res && res.error) {
      const byField = errorStatus(res.error) === 400 ? serverFieldErrors(res.error) : {};
      const rest = showServerErrors(
        form.setError,
        byField,
        (k) => k === 'stars' || k === 'comment',
      );
      if (Object.keys(rest).length === Object.keys(byField).length)
        setFormError(errorMessage(res.error, 'Rating failed. Please try again.'));
      return;
    }
    status('Thanks! Your rating was saved.');
  };

  return (
    <SchemaForm
      form={form}
      onValid={submit}
      onAttempt={() => setFormError(null)}
      className={`form ${styles.rating}`}
      aria-label="Rate the tester"
    >
      <StarsField />
      <TextArea
        name="comment"
        label="Comment"
        optional
        hint={`${comment.length}/${JOB_LIMITS.ratingCommentMax}`}
        rows={2}
      />
      <FormMessage error={formError} />
      <div className="form__actions">
        <SubmitButton busyLabel="Saving…">Save rating</SubmitButton>
      </div>
    </SchemaForm>
  );
}
