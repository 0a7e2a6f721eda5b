import {
  useEffect,
  useId,
  useImperativeHandle,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type Ref,
} from 'react';
import { reelIntro, SUMMARY_TEXT } from '@htm/contracts/summary-words';
import {
  clipRange,
  REEL_KEYS_HINT,
  ReelController,
  reelKeyAction,
  type ReelClip,
  type ReelState,
} from '../lib/reel';
import styles from './reel-player.module.css';
import { buttonClass } from './button';

/** What the summary above the player asks of it: play one piece of proof's moment. */
export interface ReelHandle {
  playMoment(clip: ReelClip): void;
}

/**
 * The highlight reel (issue #51): the clips of the summary's top problems, one after another in
 * one player, each captioned with its problem. Previous / Play / Next and the list of clips are
 * buttons; K, N and P work anywhere in the player. A moment chosen in the summary's proof plays
 * here too, as one more clip at the end of the list.
 */
export function ReelPlayer({
  clips,
  ref,
  headingLevel = 4,
}: {
  clips: ReelClip[];
  ref?: Ref<ReelHandle>;
  headingLevel?: 3 | 4;
}) {
  const titleId = useId();
  const captionId = useId();
  const video = useRef<HTMLVideoElement>(null);
  const controller = useRef<ReelController | null>(null);
  const [state, setState] = useState<ReelState>({ index: 0, playing: false });
  const [moment, setMoment] = useState<ReelClip | null>(null);
  const list = useMemo(() => (moment ? [...clips, moment] : clips), [clips, moment]);
  // The list's identity by content: a refetched summary with the same clips changes nothing.
  const key = JSON.stringify(list);

  useEffect(() => {
    const v = video.current;
    if (!v) return;
    const c = new ReelController(v, [], setState);
    controller.current = c;
    return () => {
      c.destroy();
      controller.current = null;
    };
  }, []);
  useEffect(() => {
    const c = controller.current;
    if (!c) return;
    const clips = JSON.parse(key) as ReelClip[];
    c.setClips(clips);
    // A moment was just added: play it (it is the last clip).
    if (moment) c.go(clips.length - 1, true);
  }, [key, moment]);

  useImperativeHandle(ref, () => ({ playMoment: (clip) => setMoment(clip) }), []);

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const c = controller.current;
    const action = c ? reelKeyAction({ ...e, target: e.target }) : null;
    if (!c || !action) return;
    e.preventDefault();
    c[action]();
  };

  const current = list[state.index];
  const Heading = `h${headingLevel}` as const;
  return (
    // The keys are a shortcut for the buttons below, which keyboard users reach by Tab.
    // eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions
    <section className={styles.root} aria-labelledby={titleId} onKeyDown={onKeyDown}>
      <Heading className={styles.title} id={titleId}>
        {SUMMARY_TEXT.reel}
      </Heading>
      <p className={styles.intro}>{reelIntro(clips)}</p>
      {/* The controller sets the source (clip by clip). The captions are the problems' own words,
          shown under the picture as each clip plays (aria-live), not a timed text track: the
          clips come from several recordings. */}
      {/* eslint-disable-next-line jsx-a11y/media-has-caption */}
      <video
        ref={video}
        className={styles.video}
        controls
        preload="metadata"
        playsInline
        aria-describedby={captionId}
      />
      <p className={styles.caption} id={captionId} aria-live="polite">
        {current ? (
          <>
            <strong>
              Clip {state.index + 1} of {list.length}:
            </strong>{' '}
            <span dir="auto">{current.caption}</span>
          </>
        ) : null}
      </p>
      <div className={styles.controls} role="group" aria-label="Reel controls">
        <button
          type="button"
          className={buttonClass('secondary', 'sm')}
          onClick={() => controller.current?.previous()}
          disabled={state.index === 0}
        >
          Previous clip
        </button>
        <button
          type="button"
          className={buttonClass('primary', 'sm')}
          onClick={() => controller.current?.toggle()}
        >
          {state.playing ? 'Pause' : 'Play'}
        </button>
        <button
          type="button"
          className={buttonClass('secondary', 'sm')}
          onClick={() => controller.current?.next()}
          disabled={state.index >= list.length - 1}
        >
          Next clip
        </button>
      </div>
      <ol className={styles.clips} aria-label="Clips">
        {list.map((c, i) => (
          <li key={i}>
            <button
              type="button"
              className={styles.clip}
              aria-current={i === state.index ? 'true' : undefined}
              onClick={() => controller.current?.go(i, true)}
            >
              <span className={styles.range}>{clipRange(c)}</span>{' '}
              <span dir="auto">{c.caption}</span>
            </button>
          </li>
        ))}
      </ol>
      <p className={styles.keys}>{REEL_KEYS_HINT}</p>
    </section>
  );
}
