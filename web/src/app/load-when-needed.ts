/**
 * When the prerendered landing page needs the app (React, router, store, the forms). Its HTML
 * already reads, scrolls, links and opens the FAQ without JavaScript; the app is what the forms
 * and a signed-in visitor's "Go to Dashboard" need. So it is fetched:
 * - at once when the page is not the plain landing page: a return from sign-in (#session_id=…,
 *   #auth_error=…) or a visitor who may be signed in (the readable XSRF-TOKEN cookie that comes
 *   with a session; `__Secure-XSRF-TOKEN` over https);
 * - on the visitor's first act: a tap, click, key, wheel, scroll or focus;
 * - when a form's placeholder comes within a screen of the viewport (a visitor who jumps to
 *   #job-request, or a screen tall enough to show a form);
 * - otherwise once the page has sat loaded and untouched for `idleMs`, so that a visitor who
 *   only reads finds the forms ready when they reach them.
 * Whichever comes first starts it, once.
 */
export interface LoadWhenNeededOptions {
  /** Milliseconds after the page's load event before the app is fetched without any act. */
  idleMs: number;
  /** Elements whose approach to the viewport starts the app (the forms' placeholders). */
  near: Iterable<Element>;
}

/** Acts that start the app: anything a visitor does with the page. */
export const START_EVENTS = [
  'pointerdown',
  'touchstart',
  'keydown',
  'wheel',
  'scroll',
  'focusin',
] as const;

/** Whether this page view needs the app right away (see the module's comment). */
export function needsAppAtOnce(location: Pick<Location, 'hash'>, cookie: string): boolean {
  return (
    /(^|[#&])(session_id|auth_error)=/.test(location.hash) ||
    /(^|;\s*)(__Secure-)?XSRF-TOKEN=/.test(cookie)
  );
}

/** Calls `start` once, on the first of the triggers above; returns a function that cancels them. */
export function loadWhenNeeded(
  start: () => void,
  { idleMs, near }: LoadWhenNeededOptions,
): () => void {
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listen = { capture: true, passive: true } as const;
  const onLoad = () => {
    timer = setTimeout(go, idleMs);
  };
  const observer =
    typeof IntersectionObserver === 'function'
      ? new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && go(), {
          rootMargin: '100% 0px',
        })
      : null;
  function cancel(): void {
    done = true;
    for (const type of START_EVENTS) window.removeEventListener(type, go, listen);
    window.removeEventListener('load', onLoad);
    if (timer !== undefined) clearTimeout(timer);
    observer?.disconnect();
  }
  function go(): void {
    if (done) return;
    cancel();
    start();
  }
  for (const type of START_EVENTS) window.addEventListener(type, go, listen);
  for (const el of near) observer?.observe(el);
  if (document.readyState === 'complete') onLoad();
  else window.addEventListener('load', onLoad);
  return cancel;
}
