import styles from './upload-progress.module.css';
export function UploadProgress({ percent }: { percent: number | null }) {
  if (percent === null) return null;
  return (
    <div className={styles['upload-progress']}>
      <label>
        Uploading… {percent}%
        <progress max={100} value={percent} />
      </label>
    </div>
  );
}
