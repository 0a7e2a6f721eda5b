import styles from './skip-link.module.css';

/** The page's first link: "Skip to content" (#main), shown when a keyboard user reaches it. */
export function SkipLink() {
  return (
    <a className={styles['skip-link']} href="#main">
      Skip to content
    </a>
  );
}
