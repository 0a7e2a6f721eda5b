import { Link } from 'react-router';
import styles from './brand.module.css';

/** The "$1 HumanTest" mark linking home, in the public pages' header (landing, info pages). */
export function BrandLink() {
  return (
    <Link to="/" className={styles.brand}>
      <span className={styles.brand__mark} aria-hidden="true">
        $1
      </span>
      HumanTest
    </Link>
  );
}
