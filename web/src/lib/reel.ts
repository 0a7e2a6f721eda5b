/**
 * The highlight reel's player logic (issue #51), shared by the owner's report (React) and the
 * share page's script (web/src/share-reel.ts): an ordered list of clips, each a range of a stored
 * recording, played one after another in one <video>. The browser fetches each recording with
 * HTTP Range requests from its start time: nothing is cut or re-encoded.
 */
import { formatMoment } from './format-moment';

export interface ReelClip {
  /** Where the recording plays from (a signed link or a share link's token route). */
  url: string;
  start_ms: number;
  end_ms: number;
  caption: string;
}

export interface ReelState {
  index: number;
  playing: boolean;
}

/** Seconds from the end of a clip at which it counts as played (timeupdate fires about 4 times a second). */
const END_SLACK_S = 0.05;

/** The address that starts a recording at a clip (a media fragment: the browser seeks on load). */
export const clipSrc = (c: Pick<ReelClip, 'url' | 'start_ms'>) =>
  `${c.url}#t=${(c.start_ms / 1000).toFixed(1)}`;

/**
 * Drives a <video> through the clips: `go(i)` loads the clip's recording when it differs from the
 * one playing and seeks to the clip's start; at a clip's end the next one follows, after the last
 * the reel pauses. `onChange` hears every change of clip or of playing.
 */
export class ReelController {
  private index = 0;
  private loaded: string | null = null;
  private pendingSeek: number | null = null;
  private readonly listeners: Array<[string, EventListener]>;

  constructor(
    private readonly video: HTMLVideoElement,
    private clips: ReelClip[],
    private readonly onChange: (s: ReelState) => void = () => undefined,
  ) {
    this.listeners = [
      ['timeupdate', () => this.tick()],
      ['loadedmetadata', () => this.seekPending()],
      ['play', () => this.emit()],
      ['pause', () => this.emit()],
      ['ended', () => this.ended()],
    ];
    for (const [type, fn] of this.listeners) video.addEventListener(type, fn);
  }

  get state(): ReelState {
    return { index: this.index, playing: !this.video.paused && !this.video.ended };
  }

  get clip(): ReelClip | undefined {
    return this.clips[this.index];
  }

  /** A new list (the summary was recomputed): back to its first clip, not playing. */
  setClips(clips: ReelClip[]): void {
    this.clips = clips;
    this.index = 0;
    if (clips[0]) this.load(clips[0], false);
    this.emit();
  }

  /** Plays clip `i` (or shows its first frame, `play: false`). */
  go(i: number, play = true): void {
    const clip = this.clips[i];
    if (!clip) return;
    this.index = i;
    this.load(clip, play);
    this.emit();
  }

  next(): void {
    if (this.index < this.clips.length - 1) this.go(this.index + 1, true);
  }

  previous(): void {
    // Well into a clip, "previous" starts it again (as players do); at its start, the one before.
    const clip = this.clip;
    if (clip && this.video.currentTime * 1000 > clip.start_ms + 3000) this.go(this.index, true);
    else this.go(Math.max(0, this.index - 1), true);
  }

  toggle(): void {
    if (this.video.paused || this.video.ended) {
      const clip = this.clip;
      // Past the clip's end (it was played out): from its start again.
      if (clip && this.video.currentTime * 1000 >= clip.end_ms - END_SLACK_S * 1000)
        this.go(this.index, true);
      else void this.play();
    } else this.video.pause();
  }

  destroy(): void {
    for (const [type, fn] of this.listeners) this.video.removeEventListener(type, fn);
  }

  private load(clip: ReelClip, play: boolean): void {
    const start = clip.start_ms / 1000;
    if (this.loaded === clip.url && this.video.readyState >= 1) {
      this.video.currentTime = start;
    } else {
      this.loaded = clip.url;
      this.pendingSeek = start;
      this.video.src = clipSrc(clip);
      this.video.load();
    }
    if (play) void this.play();
    else this.video.pause();
  }

  private seekPending(): void {
    if (this.pendingSeek === null) return;
    // The media fragment seeks on load; a browser that ignores it is sent there now.
    if (Math.abs(this.video.currentTime - this.pendingSeek) > 0.5)
      this.video.currentTime = this.pendingSeek;
    this.pendingSeek = null;
  }

  private async play(): Promise<void> {
    try {
      await this.video.play();
    } catch {
      // Refused (no user gesture yet, or the source changed meanwhile): the controls stay usable.
    }
    this.emit();
  }

  private tick(): void {
    const clip = this.clip;
    if (!clip || this.video.paused) return;
    if (this.video.currentTime + END_SLACK_S < clip.end_ms / 1000) return;
    if (this.index < this.clips.length - 1) this.go(this.index + 1, true);
    else {
      this.video.pause();
      this.emit();
    }
  }

  private ended(): void {
    if (this.index < this.clips.length - 1) this.go(this.index + 1, true);
    else this.emit();
  }

  private emit(): void {
    this.onChange(this.state);
  }
}

/** The reel's keys (when focus is in the player, not on a field): K play / pause, N next, P previous. */
export const REEL_KEYS = { toggle: 'k', next: 'n', previous: 'p' } as const;
export const REEL_KEYS_HINT = 'Keys: K play or pause, N next clip, P previous clip.';

/** What a key pressed in the reel does, or null (left to the browser). */
export function reelKeyAction(
  e: Pick<KeyboardEvent, 'key' | 'altKey' | 'ctrlKey' | 'metaKey'> & { target: EventTarget | null },
): 'toggle' | 'next' | 'previous' | null {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  const el = e.target as HTMLElement | null;
  if (el && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)) return null;
  const key = e.key.toLowerCase();
  if (key === REEL_KEYS.toggle) return 'toggle';
  if (key === REEL_KEYS.next) return 'next';
  if (key === REEL_KEYS.previous) return 'previous';
  return null;
}

/** "0:25–0:40". */
export const clipRange = (c: Pick<ReelClip, 'start_ms' | 'end_ms'>) =>
  `${formatMoment(c.start_ms)}–${formatMoment(c.end_ms)}`;
