import { useRef, useState } from 'react';
import type { FindingView, RecordingView } from '@htm/contracts/findings';
import { formatMoment } from '../lib/format-moment';
import { FindingsList } from './findings-list';
import styles from './recording-player.module.css';
import { buttonClass } from './button';

const SPEEDS = [1, 1.5, 2] as const;

/**
 * The tester's screen recording with the findings pinned to its moments: native controls
 * (keyboard: space, arrows), a marker per finding on the timeline (click: the video jumps
 * there) and 1x / 1.5x / 2x. The findings list below seeks too.
 */
export function RecordingPlayer({
  recording,
  findings,
}: {
  recording: RecordingView;
  findings: FindingView[];
}) {
  const video = useRef<HTMLVideoElement>(null);
  const [speed, setSpeed] = useState<number>(1);
  const [duration, setDuration] = useState<number | null>(recording.duration_ms);
  const seek = (ms: number) => {
    const v = video.current;
    if (!v) return;
    v.currentTime = ms / 1000;
    v.focus();
  };
  const pinned = findings.filter((f) => f.at_ms !== null);
  return (
    <section className="player" aria-label="Screen recording">
      {/* A tester's narrated session comes with no captions file; its findings, in text beside the
          player, say what each moment shows. */}
      {/* eslint-disable-next-line jsx-a11y/media-has-caption */}
      <video
        ref={video}
        className={styles.player__video}
        src={recording.url}
        controls
        preload="metadata"
        onLoadedMetadata={(e) => {
          const d = e.currentTarget.duration;
          if (Number.isFinite(d) && d > 0) setDuration(Math.round(d * 1000));
        }}
      />
      {duration && pinned.length ? (
        <div className={styles.player__timeline} aria-label="Findings on the timeline">
          {pinned.map((f, i) => (
            <button
              key={i}
              type="button"
              className={`${styles.player__marker}${f.severity ? ` ${styles[`player__marker--${f.severity}`]}` : ''}`}
              style={{ left: `${Math.min(100, (f.at_ms! / duration) * 100)}%` }}
              onClick={() => seek(f.at_ms!)}
              title={`${formatMoment(f.at_ms!)}: ${f.text}`}
              aria-label={`Jump to ${formatMoment(f.at_ms!)}: ${f.text}`}
            />
          ))}
        </div>
      ) : null}
      <div className={styles.player__speeds} role="group" aria-label="Playback speed">
        {SPEEDS.map((s) => (
          <button
            key={s}
            type="button"
            className={buttonClass('secondary', 'sm')}
            aria-pressed={speed === s}
            onClick={() => {
              setSpeed(s);
              if (video.current) video.current.playbackRate = s;
            }}
          >
            {s}x
          </button>
        ))}
      </div>
      <FindingsList findings={findings} onSeek={seek} />
    </section>
  );
}
