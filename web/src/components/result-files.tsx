import styles from './result-files.module.css';
import { buttonClass } from './button';

const VIDEO = /\.(mp4|webm|mov)$/i;

/**
 * The files of the accepted results: a screenshot shows inline (the image itself, scaled to the
 * width), a video as a player; each keeps its name and Download. `label(i)` names file i.
 */
export function ResultFiles({
  urls,
  label,
  onDownload,
}: {
  urls: string[];
  label: (i: number) => string;
  onDownload: (url: string, i: number) => void;
}) {
  return (
    <ul className={styles.files}>
      {urls.map((u, i) => (
        <li key={u} className={styles.file}>
          {VIDEO.test(label(i)) ? (
            // eslint-disable-next-line jsx-a11y/media-has-caption -- the tester's own screen video
            <video
              className={styles.image}
              src={u}
              controls
              preload="metadata"
              aria-label={label(i)}
            />
          ) : (
            <a href={u} target="_blank" rel="noreferrer">
              <img className={styles.image} src={u} alt={label(i)} loading="lazy" />
            </a>
          )}
          <span className={styles.caption}>
            <span>{label(i)}</span>
            <button
              type="button"
              className={buttonClass('secondary', 'sm')}
              onClick={() => onDownload(u, i)}
            >
              Download
            </button>
          </span>
        </li>
      ))}
    </ul>
  );
}
