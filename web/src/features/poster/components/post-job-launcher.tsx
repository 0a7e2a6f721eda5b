import { useState } from 'react';
import { takePostJobAfterSignIn } from '../../../lib/drafts';
import { PostJobModal } from './post-job-modal';

/**
 * The 'Post New Job' button and its modal (also shown to the admin). Opens by itself once after
 * a signed-out visitor's job request on the landing page led them through sign-in.
 */
export default function PostJobLauncher() {
  const [open, setOpen] = useState(takePostJobAfterSignIn);
  return (
    <>
      <button type="button" className="btn btn--primary" onClick={() => setOpen(true)}>
        Post New Job
      </button>
      {open ? <PostJobModal onClose={() => setOpen(false)} /> : null}
    </>
  );
}
