import { useState } from 'react';
import { takePostJobAfterSignIn } from '../../../lib/drafts';
import type { FavouriteView } from '@htm/contracts/favourites';
import { PostJobModal } from './post-job-modal';
import { buttonClass } from '../../../components/button';

/**
 * Whether Post New Job should open by itself on this page load: taken from the session once
 * per page, and kept until the poster closes the modal, so a dashboard that mounts twice while
 * signing in (loading, then the signed-in user) still opens it.
 */
let openAfterSignIn: boolean | undefined;
function shouldOpenAfterSignIn(): boolean {
  // Taken again once closed: a signed-in poster may send another request from the landing page.
  if (!openAfterSignIn) openAfterSignIn = takePostJobAfterSignIn();
  return openAfterSignIn;
}

/**
 * The 'Post New Job' button and its modal (also shown to the admin). Opens by itself once after
 * a signed-out visitor's job request on the landing page led them through sign-in. The poster's
 * favourite testers (their dashboard's list) may be invited first.
 */
export default function PostJobLauncher({ favourites }: { favourites?: FavouriteView[] } = {}) {
  const [open, setOpen] = useState(shouldOpenAfterSignIn);
  const close = () => {
    openAfterSignIn = false;
    setOpen(false);
  };
  return (
    <>
      <button type="button" className={buttonClass('primary')} onClick={() => setOpen(true)}>
        Post New Job
      </button>
      {open ? (
        <PostJobModal
          onClose={close}
          onPosted={() => (openAfterSignIn = false)}
          favourites={favourites}
        />
      ) : null}
    </>
  );
}
