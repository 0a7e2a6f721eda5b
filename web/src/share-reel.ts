/**
 * The share page's highlight reel (jobs renders /r/{token} without script; this file is its one
 * script, built as /share-reel.js and loaded from the same origin). Without it the page still
 * plays each clip by its link (?clip=N, a media fragment that starts and stops the video there);
 * with it the clips play one after another in the page's player, Play / Pause appears, the
 * clip links and Previous / Next switch clips in place, and K, N and P work in the player.
 *
 * The markup it reads: [data-reel] around a [data-reel-video] <video>, [data-reel-clip] links
 * (data-url, data-start, data-end in ms, data-caption), [data-reel-caption], [data-reel-toggle]
 * (hidden), [data-reel-previous], [data-reel-next] and [data-reel-keys] (hidden).
 */
import { ReelController, reelKeyAction, type ReelClip, type ReelState } from './lib/reel';

function enhance(root: HTMLElement): void {
  const video = root.querySelector<HTMLVideoElement>('[data-reel-video]');
  const links = Array.from(root.querySelectorAll<HTMLAnchorElement>('[data-reel-clip]'));
  if (!video || !links.length) return;
  const clips: ReelClip[] = links.map((a) => ({
    url: a.dataset.url ?? '',
    start_ms: Number(a.dataset.start),
    end_ms: Number(a.dataset.end),
    caption: a.dataset.caption ?? '',
  }));
  const caption = root.querySelector<HTMLElement>('[data-reel-caption]');
  const toggle = root.querySelector<HTMLButtonElement>('[data-reel-toggle]');
  const previous = root.querySelector<HTMLAnchorElement>('[data-reel-previous]');
  const next = root.querySelector<HTMLAnchorElement>('[data-reel-next]');
  let shown = -1;
  const render = (s: ReelState) => {
    if (toggle) toggle.textContent = s.playing ? 'Pause' : 'Play';
    if (s.index === shown) return;
    // Once another clip is chosen, the address names it (a reload or a copied link comes back to it).
    if (shown !== -1) history.replaceState(history.state, '', `?clip=${s.index}#reel`);
    shown = s.index;
    links.forEach((a, i) => {
      const current = i === s.index;
      if (current) a.setAttribute('aria-current', 'true');
      else a.removeAttribute('aria-current');
      // The page has no style sheet (style attributes only): the clip playing is marked here.
      a.style.borderColor = current ? '#1f5fd1' : '#dde1e6';
      a.style.background = current ? '#e8eeff' : '';
    });
    if (caption) {
      const label = document.createElement('strong');
      label.textContent = `Clip ${s.index + 1} of ${clips.length}:`;
      caption.replaceChildren(label, ` ${clips[s.index].caption}`);
    }
    const edge = (a: HTMLAnchorElement | null, at: boolean, to: number) => {
      if (!a) return;
      a.href = `?clip=${to}#reel`;
      if (at) a.setAttribute('aria-disabled', 'true');
      else a.removeAttribute('aria-disabled');
      a.style.opacity = at ? '.5' : '';
    };
    edge(previous, s.index === 0, Math.max(0, s.index - 1));
    edge(next, s.index === clips.length - 1, Math.min(clips.length - 1, s.index + 1));
  };
  const first = Math.max(
    0,
    links.findIndex((a) => a.getAttribute('aria-current') === 'true'),
  );
  const reel = new ReelController(video, clips, render);
  reel.go(first, false);
  links.forEach((a, i) =>
    a.addEventListener('click', (e) => {
      e.preventDefault();
      reel.go(i, true);
    }),
  );
  previous?.addEventListener('click', (e) => {
    e.preventDefault();
    reel.previous();
  });
  next?.addEventListener('click', (e) => {
    e.preventDefault();
    reel.next();
  });
  if (toggle) {
    toggle.hidden = false;
    toggle.addEventListener('click', () => reel.toggle());
  }
  const keys = root.querySelector<HTMLElement>('[data-reel-keys]');
  if (keys) keys.hidden = false;
  root.addEventListener('keydown', (e) => {
    const action = reelKeyAction(e);
    if (!action) return;
    e.preventDefault();
    reel[action]();
  });
}

document.querySelectorAll<HTMLElement>('[data-reel]').forEach(enhance);
