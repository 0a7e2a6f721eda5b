import { Link } from 'react-router';

/** The "$1 HumanTest" mark linking home, in the public pages' header (landing, info pages). */
export function BrandLink() {
  return (
    <Link to="/" className="brand">
      <span className="brand__mark" aria-hidden="true">
        $1
      </span>
      HumanTest
    </Link>
  );
}
