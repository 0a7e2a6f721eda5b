import { createContext, useContext, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { RecordingLimits } from '@htm/contracts/findings';
import { formatMoment } from '../../../lib/format-moment';
import { useRecordingLimits } from '../api/list-my-jobs';
import { markFindingMoment, type FindingDetailsDraft } from './key-finding-fields';
import {
  canRecordScreen,
  describeSource,
  micErrorMessage,
  pickRecordingType,
  RECORDER_MESSAGES as M,
  screenErrorMessage,
  tusUploader,
  type AttachedRecording,
  type RecordingUpload,
  type RecordingUploader,
} from '../recording';

/** What the form must know to allow Submit: null when nothing is in progress. */
export type RecorderBusy = 'recording' | 'uploading' | 'not_uploaded' | null;

type Phase =
  'idle' | 'consent' | 'starting' | 'recording' | 'paused' | 'uploading' | 'failed' | 'done';

const MARK_KEY = 'Alt+M';

/** How recordings are uploaded: tus to /api/recordings (tests provide their own). */
export const RecordingUploaderContext = createContext<RecordingUploader>(tusUploader);

/** Why Submit must wait for the recorder, or null. */
export function recordingProblem(busy: RecorderBusy): string | null {
  return busy === 'recording'
    ? M.stillRecording
    : busy === 'uploading'
      ? M.stillUploading
      : busy === 'not_uploaded'
        ? M.notUploaded
        : null;
}

/**
 * The recorder inside a Submit Work form whose draft keeps the findings' details and the uploaded
 * recording: "Mark moment" pins the first finding without a moment, the upload lands in the draft
 * (so a reload keeps it), and Submit learns whether it must wait.
 */
export function useRecorderInForm<
  T extends { details?: FindingDetailsDraft[]; recording?: AttachedRecording },
>(jobId: string, draft: T, setDraft: (next: T) => void) {
  const limits = useRecordingLimits();
  const [busy, setBusy] = useState<RecorderBusy>(null);
  // Marks can come faster than renders (a key held down): each builds on the last one.
  const current = useRef(draft);
  useLayoutEffect(() => {
    current.current = draft;
  });
  const patch = (p: Partial<T>) => {
    current.current = { ...current.current, ...p };
    setDraft(current.current);
  };
  return {
    recorderProps: {
      jobId,
      limits,
      attached: draft.recording ?? null,
      onAttached: (rec: AttachedRecording | null) =>
        patch({ recording: rec ?? undefined } as Partial<T>),
      onMark: (atMs: number) => {
        const m = markFindingMoment(current.current.details, atMs);
        if (!m) return M.allMarked;
        patch({ details: m.details } as Partial<T>);
        return M.marked(formatMoment(atMs), m.n);
      },
      onBusyChange: setBusy,
    },
    problem: recordingProblem(busy),
    recordingId: draft.recording?.id ?? null,
  };
}
const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * "Record your screen" in both Submit Work forms: a consent note, then getDisplayMedia (the
 * tester picks a screen, window or tab) plus the microphone when allowed, MediaRecorder (WebM,
 * or MP4 where that is what the browser records), a recording bar with the elapsed time,
 * pause/resume, stop and "Mark moment" (also Alt+M), a stop at `limits.max_ms`, then a resumable
 * upload (tus) with progress and retry. `onMark(ms)` pins a finding to the moment and answers the
 * line to show; `onAttached` gives the uploaded recording (or null when removed).
 */
export function ScreenRecorder({
  jobId,
  limits,
  attached,
  onAttached,
  onMark,
  onBusyChange,
}: {
  jobId: string;
  limits: RecordingLimits;
  attached: AttachedRecording | null;
  onAttached: (rec: AttachedRecording | null) => void;
  onMark: (atMs: number) => string;
  onBusyChange: (busy: RecorderBusy) => void;
}) {
  const uploader = useContext(RecordingUploaderContext);
  const [phase, setPhase] = useState<Phase>(attached ? 'done' : 'idle');
  const [withVoice, setWithVoice] = useState(true);
  const [elapsed, setElapsed] = useState(0);
  const [source, setSource] = useState('');
  const [voice, setVoice] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<{ sent: number; total: number }>({ sent: 0, total: 0 });
  const [preview, setPreview] = useState<string | null>(null);

  const streams = useRef<MediaStream[]>([]);
  const recorder = useRef<MediaRecorder | null>(null);
  const chunks = useRef<Blob[]>([]);
  const clock = useRef({ startedAt: 0, pausedAt: 0, pausedMs: 0 });
  const upload = useRef<RecordingUpload | null>(null);
  const live = useRef<HTMLVideoElement>(null);
  const stopReason = useRef<string | null>(null);
  // Handlers registered once (timer, key listener, recorder events) call the latest props.
  const latest = useRef({ onMark, onAttached, onBusyChange });
  useLayoutEffect(() => {
    latest.current = { onMark, onAttached, onBusyChange };
  });
  const [canRetry, setCanRetry] = useState(false);

  const elapsedNow = () => {
    const c = clock.current;
    if (!c.startedAt) return 0;
    const end = c.pausedAt || Date.now();
    return Math.max(0, end - c.startedAt - c.pausedMs);
  };

  useEffect(() => {
    const busy: RecorderBusy =
      phase === 'recording' || phase === 'paused' || phase === 'starting'
        ? 'recording'
        : phase === 'uploading'
          ? 'uploading'
          : phase === 'failed'
            ? 'not_uploaded'
            : null;
    latest.current.onBusyChange(busy);
  }, [phase]);

  const releaseDevices = () => {
    for (const s of streams.current) for (const t of s.getTracks()) t.stop();
    streams.current = [];
  };

  // Leaving the form (closing the modal) stops the capture and the upload.
  useEffect(
    () => () => {
      releaseDevices();
      if (recorder.current && recorder.current.state !== 'inactive') recorder.current.stop();
      upload.current?.abort();
    },
    [],
  );

  const stop = (reason: string | null = null) => {
    const r = recorder.current;
    if (!r || r.state === 'inactive') return;
    stopReason.current = reason;
    clock.current.pausedAt ||= Date.now();
    r.stop();
  };

  const mark = () => {
    const at = elapsedNow();
    setNote(latest.current.onMark(at));
  };

  // The elapsed time, and the stop at the limit. A display clock, not a timer of the product.
  useEffect(() => {
    if (phase !== 'recording') return;
    const tick = () => {
      const ms = elapsedNow();
      setElapsed(ms);
      if (ms >= limits.max_ms) stop(M.limitReached(formatMoment(limits.max_ms)));
    };
    const id = window.setInterval(tick, 250);
    return () => window.clearInterval(id);
  }, [phase, limits.max_ms]);

  // Alt+M marks a moment while the form's page has the focus.
  useEffect(() => {
    if (phase !== 'recording' && phase !== 'paused') return;
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyM') {
        e.preventDefault();
        setNote(latest.current.onMark(elapsedNow()));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [phase]);

  useEffect(() => {
    if (live.current && streams.current[0] && (phase === 'recording' || phase === 'paused'))
      live.current.srcObject = streams.current[0];
  }, [phase]);

  const startUpload = (file: Blob, fileType: string, durationMs: number) => {
    setPhase('uploading');
    setError(null);
    setSent({ sent: 0, total: file.size });
    const u = uploader(
      file,
      { jobId, fileType },
      {
        onProgress: (s, total) => setSent({ sent: s, total }),
        onSuccess: (id) => {
          upload.current = null;
          setCanRetry(false);
          setPhase('done');
          latest.current.onAttached({ id, duration_ms: durationMs, size_bytes: file.size });
        },
        onError: (status, detail) => {
          setPhase('failed');
          setError(
            status === 0
              ? M.uploadDropped
              : status === 413
                ? (detail ?? M.tooLarge(Math.round(limits.max_bytes / (1024 * 1024))))
                : `${M.uploadFailed} ${detail ?? ''}`.trim(),
          );
        },
      },
    );
    upload.current = u;
    setCanRetry(true);
    u.start();
  };

  const start = async () => {
    setError(null);
    setNote(null);
    const type = pickRecordingType();
    if (!type) {
      setError(M.noRecorder);
      setPhase('idle');
      return;
    }
    setPhase('starting');
    let screen: MediaStream;
    try {
      screen = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
    } catch (err) {
      setError(screenErrorMessage(err));
      setPhase('consent');
      return;
    }
    streams.current = [screen];
    const tracks = [...screen.getVideoTracks()];
    let micNote: string | null = null;
    if (withVoice) {
      try {
        const mic = await navigator.mediaDevices.getUserMedia({ audio: true });
        streams.current.push(mic);
        tracks.push(...mic.getAudioTracks());
      } catch (err) {
        micNote = micErrorMessage(err);
      }
    }
    const video = screen.getVideoTracks()[0];
    setSource(video ? describeSource(video) : 'Shared screen');
    setVoice(tracks.some((t) => t.kind === 'audio'));
    setNote(micNote);
    // The tester ends sharing from the browser's own bar: the recording ends there too.
    video?.addEventListener('ended', () => stop(M.sharingEnded));
    const rec = new MediaRecorder(new MediaStream(tracks), { mimeType: type });
    chunks.current = [];
    rec.ondataavailable = (e) => {
      if (e.data.size) chunks.current.push(e.data);
    };
    rec.onstop = () => {
      releaseDevices();
      const durationMs = elapsedNow();
      const fileType = rec.mimeType || type;
      const file = new Blob(chunks.current, { type: fileType.split(';')[0] });
      chunks.current = [];
      recorder.current = null;
      setElapsed(durationMs);
      if (stopReason.current) setNote(stopReason.current);
      setPreview((old) => {
        if (old) URL.revokeObjectURL(old);
        return typeof URL.createObjectURL === 'function' ? URL.createObjectURL(file) : null;
      });
      if (file.size > limits.max_bytes) {
        setPhase('failed');
        setError(M.tooLarge(Math.round(limits.max_bytes / (1024 * 1024))));
        return;
      }
      startUpload(file, fileType, durationMs);
    };
    recorder.current = rec;
    clock.current = { startedAt: Date.now(), pausedAt: 0, pausedMs: 0 };
    stopReason.current = null;
    setElapsed(0);
    rec.start(1000);
    setPhase('recording');
  };

  const pause = () => {
    const r = recorder.current;
    if (!r || r.state !== 'recording') return;
    r.pause();
    clock.current.pausedAt = Date.now();
    setElapsed(elapsedNow());
    setPhase('paused');
  };

  const resume = () => {
    const r = recorder.current;
    if (!r || r.state !== 'paused') return;
    r.resume();
    const c = clock.current;
    c.pausedMs += Date.now() - c.pausedAt;
    c.pausedAt = 0;
    setPhase('recording');
  };

  const discard = () => {
    upload.current?.abort();
    upload.current = null;
    setCanRetry(false);
    setPreview((old) => {
      if (old) URL.revokeObjectURL(old);
      return null;
    });
    setError(null);
    setNote(null);
    setPhase('idle');
    latest.current.onAttached(null);
  };

  if (!canRecordScreen()) {
    return (
      <section className="recorder" aria-label="Screen recording">
        <h3 className="recorder__title">Screen recording</h3>
        <p className="muted">{M.unsupported}</p>
      </section>
    );
  }

  const limit = formatMoment(limits.max_ms);
  const pct = sent.total ? Math.floor((sent.sent / sent.total) * 100) : 0;
  return (
    <section className="recorder" aria-label="Screen recording">
      <h3 className="recorder__title">
        Screen recording <span className="field__optional">(optional)</span>
      </h3>
      {phase === 'idle' ? (
        <>
          <p className="muted">
            Record your screen and your voice while you test: the poster watches you use the site
            and hears what you think. Up to {limit}.
          </p>
          <button type="button" className="btn btn--secondary" onClick={() => setPhase('consent')}>
            Record your screen
          </button>
        </>
      ) : null}
      {phase === 'consent' || phase === 'starting' ? (
        <div className="recorder__consent" role="group" aria-label="Before you record">
          <p>
            <strong>Before you start:</strong> you choose a screen, window or tab to share.
            Everything shown in it, and your voice, is recorded and sent to the poster of this job.
            Close private tabs, e-mail and chats, and silence notifications first.
          </p>
          <label className="check">
            <input
              type="checkbox"
              checked={withVoice}
              onChange={(e) => setWithVoice(e.target.checked)}
            />{' '}
            Record my voice (microphone)
          </label>
          <div className="form__actions">
            <button
              type="button"
              className="btn btn--ghost"
              onClick={() => {
                setError(null);
                setPhase('idle');
              }}
            >
              Not now
            </button>
            <button
              type="button"
              className="btn btn--primary"
              disabled={phase === 'starting'}
              onClick={() => void start()}
            >
              Start recording
            </button>
          </div>
        </div>
      ) : null}
      {phase === 'recording' || phase === 'paused' ? (
        <div className="recorder__bar" role="group" aria-label="Recording controls">
          <span className={`recorder__dot${phase === 'paused' ? ' recorder__dot--paused' : ''}`} />
          <span className="recorder__state">{phase === 'paused' ? 'Paused' : 'Recording'}</span>
          <span className="recorder__time" aria-label="Elapsed time">
            {formatMoment(elapsed)} / {limit}
          </span>
          <span className="recorder__buttons">
            {phase === 'paused' ? (
              <button type="button" className="btn btn--secondary btn--sm" onClick={resume}>
                Resume
              </button>
            ) : (
              <button type="button" className="btn btn--secondary btn--sm" onClick={pause}>
                Pause
              </button>
            )}
            <button
              type="button"
              className="btn btn--secondary btn--sm"
              onClick={mark}
              aria-keyshortcuts={MARK_KEY}
              title={`Mark moment (${MARK_KEY})`}
            >
              Mark moment <kbd>{MARK_KEY}</kbd>
            </button>
            <button type="button" className="btn btn--danger btn--sm" onClick={() => stop()}>
              Stop
            </button>
          </span>
          <span className="recorder__source">
            Sharing: {source} · Voice: {voice ? 'on' : 'off'}
          </span>
          {/* The live picture of what is shared; muted, the tester hears themselves otherwise. */}
          <video ref={live} className="recorder__live" autoPlay muted playsInline aria-hidden />
        </div>
      ) : null}
      {phase === 'uploading' ? (
        <div className="upload-progress">
          <label>
            Uploading the recording… {pct}% ({mb(Math.max(0, sent.total - sent.sent))} left)
            <progress max={100} value={pct} />
          </label>
        </div>
      ) : null}
      {phase === 'done' && attached ? (
        <p className="recorder__attached">
          Recording attached: {formatMoment(attached.duration_ms)}, {mb(attached.size_bytes)}.{' '}
          <button type="button" className="btn btn--link btn--sm" onClick={discard}>
            Remove recording
          </button>
        </p>
      ) : null}
      {preview && (phase === 'done' || phase === 'uploading' || phase === 'failed') ? (
        // eslint-disable-next-line jsx-a11y/media-has-caption -- the tester's own narration, played back to them
        <video className="recorder__review" src={preview} controls aria-label="Your recording" />
      ) : null}
      {note ? (
        <p className="recorder__note" role="status">
          {note}
        </p>
      ) : null}
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          {error}
        </p>
      ) : null}
      {phase === 'failed' ? (
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={discard}>
            Discard recording
          </button>
          {canRetry ? (
            <button
              type="button"
              className="btn btn--primary"
              onClick={() => {
                setError(null);
                setPhase('uploading');
                upload.current?.start();
              }}
            >
              Retry upload
            </button>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
