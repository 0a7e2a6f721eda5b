import { useGetPublicProofQuery } from '../api/get-public-proof';
import styles from './live-proof.module.css';

/** "1 hour" / "6.5 hours": the median as people say it. */
export function formatHours(h: number): string {
  return `${h} ${h === 1 ? 'hour' : 'hours'}`;
}

/**
 * Live proof from real data: tests delivered and the median time to a first result. Nothing
 * shows while there is too little data to be honest (proof null), while it loads or on an error.
 */
export function LiveProof() {
  const { data } = useGetPublicProofQuery();
  const proof = data?.proof;
  if (!proof) return null;
  return (
    <p className={styles['live-proof']}>
      <strong>{proof.tests_delivered.toLocaleString('en-US')} tests delivered</strong>, median time
      to first result <strong>{formatHours(proof.median_hours_to_first_result)}</strong>.
    </p>
  );
}
