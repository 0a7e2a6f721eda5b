import { useState } from 'react';
import { PostJobModal } from './post-job-modal';

/** The 'Post New Job' button and its modal (also shown to the admin). */
export default function PostJobLauncher() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn btn--primary" onClick={() => setOpen(true)}>
        Post New Job
      </button>
      {open ? <PostJobModal onClose={() => setOpen(false)} /> : null}
    </>
  );
}
