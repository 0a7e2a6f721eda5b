import { createContext, useContext, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
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
import { openFloatingWindow, type FloatingWindow } from '../floating-window';
import { RecorderControl } from './recorder-control';
import {
  defaultKeeper,
  LiveRecording,
  type ChunkKeeper,
  type KeptRecording,
  type PendingRecording,
} from '../live-recording';
import styles from './screen-recorder.module.css';
import progressStyles from './upload-progress.module.css';
import { buttonClass } from '../../../components/button';

/** What the form must know to allow Submit: null when nothing is in progress. */
export type RecorderBusy = 'recording' | 'uploading' | 'not_uploaded' | null;

type Phase =
  | 'idle'
  | 'consent'
  | 'starting'
  | 'recording'
  | 'paused'
  | 'uploading'
  | 'failed'
  | 'done'
  | 'checking'
  | 'interrupted'
  | 'lost';

const MARK_KEY = 'Alt+M';

/** A touch screen has no Alt key: the shortcut is not offered there. */
export function hasKeyboardShortcuts(w: Window = window): boolean {
  return !w.matchMedia?.('(pointer: coarse)').matches;
}

/** How recordings are uploaded: tus to /api/recordings (tests provide their own). */
export const RecordingUploaderContext = createContext<RecordingUploader>(tusUploader);
/** Where the chunks are kept for a reload: IndexedDB where there is one (tests provide their own). */
export const RecordingKeeperContext = createContext<ChunkKeeper | null>(null);
/** A kept recording whose draft is gone (the form was submitted or discarded elsewhere) goes after this. */
const KEEP_MS = 7 * 86_400_000;

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
  T extends {
    details?: FindingDetailsDraft[];
    recording?: AttachedRecording;
    pending_recording?: PendingRecording;
  },
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
        patch({ recording: rec ?? undefined, pending_recording: undefined } as Partial<T>),
      pending: draft.pending_recording ?? null,
      onPending: (p: PendingRecording | null) =>
        patch({ pending_recording: p ?? undefined } as Partial<T>),
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
 * pause/resume, stop and "Mark moment" (also Alt+M), a stop at `limits.max_ms`.
 *
 * The upload follows the recording (tus with deferred length): it starts with the recording and
 * sends each part as MediaRecorder produces it, so Stop leaves only the last seconds to send.
 * Every chunk is also kept in IndexedDB and the draft keeps the upload's URL (`onPending`), so
 * after a reload the tester can finish the upload from the server's offset; where the browser
 * kept nothing, the recorder says the recording is lost and offers to record again.
 * `onMark(ms)` pins a finding to the moment and answers the line to show; `onAttached` gives the
 * uploaded recording (or null when removed).
 */
export function ScreenRecorder({
  jobId,
  limits,
  attached,
  onAttached,
  pending,
  onPending,
  onMark,
  onBusyChange,
}: {
  jobId: string;
  limits: RecordingLimits;
  attached: AttachedRecording | null;
  onAttached: (rec: AttachedRecording | null) => void;
  pending: PendingRecording | null;
  onPending: (p: PendingRecording | null) => void;
  onMark: (atMs: number) => string;
  onBusyChange: (busy: RecorderBusy) => void;
}) {
  const uploader = useContext(RecordingUploaderContext);
  const keeper = useContext(RecordingKeeperContext) ?? defaultKeeper();
  const [phase, setPhase] = useState<Phase>(attached ? 'done' : pending ? 'checking' : 'idle');
  const [withVoice, setWithVoice] = useState(true);
  const [elapsed, setElapsed] = useState(0);
  const [source, setSource] = useState('');
  const [voice, setVoice] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Bytes the server has, and bytes recorded so far (the upload follows the recording).
  const [sent, setSent] = useState({ sent: 0, total: 0 });
  const [uploadNote, setUploadNote] = useState<string | null>(null);
  const [kept, setKept] = useState<KeptRecording | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  // The always-on-top control (Picture-in-Picture or a pop-up) while recording, and why not.
  const [floating, setFloating] = useState<FloatingWindow | null>(null);
  const [floatNote, setFloatNote] = useState<string | null>(null);
  const floatingNow = useRef<FloatingWindow | null>(null);
  useLayoutEffect(() => {
    floatingNow.current = floating;
  });
  const showKey = hasKeyboardShortcuts();

  const streams = useRef<MediaStream[]>([]);
  const recorder = useRef<MediaRecorder | null>(null);
  const live = useRef<LiveRecording | null>(null);
  const clock = useRef({ startedAt: 0, pausedAt: 0, pausedMs: 0 });
  const upload = useRef<RecordingUpload | null>(null);
  const uploadState = useRef<{ failed: { status: number; detail: string | null } | null }>({
    failed: null,
  });
  const durationMs = useRef(0);
  const retryTimer = useRef<number | undefined>(undefined);
  /** What the draft was last told about the unfinished upload (props lag a render behind). */
  const pendingNow = useRef<PendingRecording | null>(pending);
  const setPending = (p: PendingRecording | null) => {
    pendingNow.current = p;
    latest.current.onPending(p);
  };
  /** The upload gave up for now (no network) and a retry is scheduled. */
  const waiting = useRef(false);
  const unmounted = useRef(false);
  const video = useRef<HTMLVideoElement>(null);
  const stopReason = useRef<{ note: string | null; error: string | null }>({
    note: null,
    error: null,
  });
  // Handlers registered once (timer, key listener, recorder events) call the latest props.
  const latest = useRef({ onMark, onAttached, onPending, onBusyChange });
  useLayoutEffect(() => {
    latest.current = { onMark, onAttached, onPending, onBusyChange };
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
          : phase === 'failed' || phase === 'interrupted' || phase === 'checking'
            ? 'not_uploaded'
            : null;
    latest.current.onBusyChange(busy);
  }, [phase]);

  // A reload (or a reopened form) with an unfinished upload: is the recording still in this browser?
  useEffect(() => {
    if (phase !== 'checking' || !pending) return;
    let cancelled = false;
    keeper
      .load(pending.key)
      .catch(() => null)
      .then((k) => {
        if (cancelled) return;
        if (k) {
          setKept(k);
          setPhase('interrupted');
        } else {
          setPhase('lost');
          setPending(null);
        }
      });
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on mount
  }, []);

  // Recordings kept for drafts that are long gone.
  useEffect(() => {
    void keeper.prune(KEEP_MS).catch(() => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on mount
  }, []);

  const releaseDevices = () => {
    for (const s of streams.current) for (const t of s.getTracks()) t.stop();
    streams.current = [];
  };

  // Leaving the form (closing the modal) stops the capture and the upload; the chunks and the
  // draft's upload URL stay, so reopening the form offers to finish the upload.
  useEffect(() => {
    unmounted.current = false;
    return () => {
      unmounted.current = true;
      window.clearTimeout(retryTimer.current);
      releaseDevices();
      if (recorder.current && recorder.current.state !== 'inactive') recorder.current.stop();
      upload.current?.abort();
    };
  }, []);

  const stop = (reason: { note?: string; error?: string } = {}) => {
    const r = recorder.current;
    if (!r || r.state === 'inactive') return;
    stopReason.current = { note: reason.note ?? null, error: reason.error ?? null };
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
      if (ms >= limits.max_ms) stop({ note: M.limitReached(formatMoment(limits.max_ms)) });
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

  // The floating control: Alt+M there too; closing it (or its pop-up) leaves the in-page bar.
  useEffect(() => {
    if (!floating) return undefined;
    const { win } = floating;
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyM') {
        e.preventDefault();
        setNote(latest.current.onMark(elapsedNow()));
      }
    };
    const onGone = () => setFloating(null);
    win.addEventListener('keydown', onKey);
    win.addEventListener('pagehide', onGone);
    return () => {
      win.removeEventListener('keydown', onKey);
      win.removeEventListener('pagehide', onGone);
    };
  }, [floating]);
  // Recording over (stopped, failed, the form closed): the floating window goes too.
  useEffect(() => {
    // Its pagehide then forgets it.
    if (floating && phase !== 'recording' && phase !== 'paused') floating.win.close();
  }, [floating, phase]);
  // Leaving the form while recording closes the floating window with it.
  useEffect(() => () => floatingNow.current?.win.close(), []);

  /** Opens the always-on-top control (needs the click that calls it). */
  const showFloating = async () => {
    setFloatNote(null);
    const opened = await openFloatingWindow('Recording · HumanTest');
    if (!opened) setFloatNote(M.floatingBlocked);
    else setFloating(opened);
  };

  useEffect(() => {
    if (video.current && streams.current[0] && (phase === 'recording' || phase === 'paused'))
      video.current.srcObject = streams.current[0];
  }, [phase]);

  const isRecording = () => !!recorder.current && recorder.current.state !== 'inactive';

  const failedMessage = (status: number, detail: string | null) =>
    status === 0
      ? M.uploadDropped
      : status === 413
        ? (detail ?? M.tooLarge(Math.round(limits.max_bytes / (1024 * 1024))))
        : `${M.uploadFailed} ${detail ?? ''}`.trim();

  /** Starts the upload of `rec` (while it is recorded, or all of it after a reload). */
  const startUpload = (
    rec: LiveRecording,
    fileType: string,
    key: string,
    uploadUrl: string | null,
  ) => {
    uploadState.current.failed = null;
    setUploadNote(null);
    setSent({ sent: 0, total: rec.size });
    const u = uploader(
      rec,
      { jobId, fileType, uploadUrl },
      {
        onProgress: (s) => {
          if (!unmounted.current) setSent({ sent: s, total: rec.size });
        },
        onUrl: (url) => {
          const p = pendingNow.current;
          if (p?.key === key && p.upload_url !== url) setPending({ ...p, upload_url: url });
        },
        onSuccess: (id) => {
          upload.current = null;
          waiting.current = false;
          void keeper.remove(key).catch(() => undefined);
          if (unmounted.current) return;
          setCanRetry(false);
          setUploadNote(null);
          setPhase('done');
          pendingNow.current = null;
          latest.current.onAttached({ id, duration_ms: durationMs.current, size_bytes: rec.size });
        },
        onError: (status, detail) => {
          if (unmounted.current) return;
          if (isRecording()) {
            if (status === 0) {
              // The recording goes on (and is kept); the upload catches up when the network is back.
              setUploadNote(M.uploadWaiting);
              waiting.current = true;
              retryTimer.current = window.setTimeout(() => {
                waiting.current = false;
                upload.current?.start();
              }, 3000);
              return;
            }
            uploadState.current.failed = { status, detail };
            stop({ error: failedMessage(status, detail) });
            return;
          }
          uploadState.current.failed = { status, detail };
          setPhase('failed');
          setError(failedMessage(status, detail));
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
    const track = screen.getVideoTracks()[0];
    setSource(track ? describeSource(track) : 'Shared screen');
    setVoice(tracks.some((t) => t.kind === 'audio'));
    setNote(micNote);
    // The tester ends sharing from the browser's own bar: the recording ends there too.
    track?.addEventListener('ended', () => stop({ note: M.sharingEnded }));
    const rec = new MediaRecorder(new MediaStream(tracks), { mimeType: type });
    const fileType = rec.mimeType || type;
    const key = `${jobId}:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const recording = new LiveRecording(fileType.split(';')[0]);
    live.current = recording;
    let seq = 0;
    rec.ondataavailable = (e) => {
      if (!e.data.size) return;
      if (recording.size + e.data.size > limits.max_bytes) {
        // Like the time limit: what fits is the recording (a WebM cut between two chunks plays).
        stop({ note: M.sizeLimitReached(mb(limits.max_bytes)) });
        return;
      }
      recording.append(e.data);
      void keeper.add(key, seq++, e.data, elapsedNow()).catch(() => undefined);
      setSent((s) => ({ ...s, total: recording.size }));
    };
    rec.onstop = () => {
      releaseDevices();
      durationMs.current = elapsedNow();
      recording.finish();
      void keeper.stopped(key, durationMs.current).catch(() => undefined);
      recorder.current = null;
      if (unmounted.current) return;
      setElapsed(durationMs.current);
      const why = stopReason.current;
      if (why.note) setNote(why.note);
      setPreview((old) => {
        if (old) URL.revokeObjectURL(old);
        return typeof URL.createObjectURL === 'function'
          ? URL.createObjectURL(recording.blob())
          : null;
      });
      setSent((s) => ({ ...s, total: recording.size }));
      const failed = uploadState.current.failed;
      if (why.error || failed) {
        // The server refused the upload (403, 413): retrying would not help.
        upload.current?.abort();
        setCanRetry(false);
        setPhase('failed');
        setError(why.error ?? failedMessage(failed!.status, failed!.detail));
        return;
      }
      setPhase('uploading');
      if (waiting.current) {
        // The network was down while recording: try again now rather than in a few seconds.
        window.clearTimeout(retryTimer.current);
        waiting.current = false;
        upload.current?.start();
      }
    };
    recorder.current = rec;
    clock.current = { startedAt: Date.now(), pausedAt: 0, pausedMs: 0 };
    stopReason.current = { note: null, error: null };
    durationMs.current = 0;
    setElapsed(0);
    rec.start(1000);
    setPhase('recording');
    // Straight away when the browser still counts the click (else the bar's button opens it).
    if (
      (navigator as Navigator & { userActivation?: { isActive: boolean } }).userActivation?.isActive
    )
      void showFloating();
    setPending({ key, upload_url: null, file_type: fileType });
    startUpload(recording, fileType, key, null);
  };

  /** After a reload: the kept chunks are the recording; the upload goes on from the server's offset. */
  const resumeKept = () => {
    if (!pending || !kept) return;
    const recording = new LiveRecording(pending.file_type.split(';')[0], kept.blobs, true);
    live.current = recording;
    durationMs.current = kept.duration_ms;
    setElapsed(kept.duration_ms);
    setError(null);
    setPreview(
      typeof URL.createObjectURL === 'function' ? URL.createObjectURL(recording.blob()) : null,
    );
    setPhase('uploading');
    startUpload(recording, pending.file_type, pending.key, pending.upload_url);
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
    window.clearTimeout(retryTimer.current);
    waiting.current = false;
    upload.current?.abort();
    upload.current = null;
    const key = pendingNow.current?.key;
    pendingNow.current = null;
    if (key) void keeper.remove(key).catch(() => undefined);
    live.current = null;
    setKept(null);
    setCanRetry(false);
    setPreview((old) => {
      if (old) URL.revokeObjectURL(old);
      return null;
    });
    setError(null);
    setNote(null);
    setUploadNote(null);
    setPhase('idle');
    latest.current.onAttached(null);
  };

  if (!canRecordScreen()) {
    return (
      <section className={styles.recorder} aria-label="Screen recording">
        <h3 className={styles.recorder__title}>Screen recording</h3>
        <p className="muted">{M.unsupported}</p>
      </section>
    );
  }

  const limit = formatMoment(limits.max_ms);
  // A window closed behind our back (its pagehide may come late) is no longer on top.
  const onTop = floating && !floating.win.closed ? floating : null;
  const pct = sent.total ? Math.min(100, Math.floor((sent.sent / sent.total) * 100)) : 0;
  return (
    <section className={styles.recorder} aria-label="Screen recording">
      <h3 className={styles.recorder__title}>
        Screen recording <span className="field__optional">(optional)</span>
      </h3>
      {phase === 'idle' ? (
        <>
          <p className="muted">
            Record your screen and your voice while you test: the poster watches you use the site
            and hears what you think. Up to {limit}.
          </p>
          <button
            type="button"
            className={buttonClass('secondary')}
            onClick={() => setPhase('consent')}
          >
            Record your screen
          </button>
        </>
      ) : null}
      {phase === 'checking' ? (
        <p className="muted">Looking for your unfinished recording…</p>
      ) : null}
      {phase === 'interrupted' && kept ? (
        <div className={styles.recorder__resume} role="group" aria-label="Unfinished recording">
          <p>{M.interrupted(formatMoment(kept.duration_ms), mb(kept.size), kept.stopped)}</p>
          <div className="form__actions">
            <button type="button" className={buttonClass('ghost')} onClick={discard}>
              Discard recording
            </button>
            <button type="button" className={buttonClass('primary')} onClick={resumeKept}>
              Upload the recording
            </button>
          </div>
        </div>
      ) : null}
      {phase === 'lost' ? (
        <div className={styles.recorder__resume} role="group" aria-label="Unfinished recording">
          <p role="alert">{M.lost}</p>
          <div className="form__actions">
            <button type="button" className={buttonClass('ghost')} onClick={discard}>
              Submit without a recording
            </button>
            <button
              type="button"
              className={buttonClass('primary')}
              onClick={() => setPhase('consent')}
            >
              Record again
            </button>
          </div>
        </div>
      ) : null}
      {phase === 'consent' || phase === 'starting' ? (
        <div className={styles.recorder__consent} role="group" aria-label="Before you record">
          <p>
            <strong>Before you start:</strong> open the site you test in another window (or tab)
            first. Then you choose a screen, window or tab to share; while you record, a small
            control with Mark moment, Pause and Stop stays on top of the site. Everything shown in
            what you share, and your voice, is recorded and sent to the poster of this job. Close
            private tabs, e-mail and chats, and silence notifications first.
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
              className={buttonClass('ghost')}
              onClick={() => {
                setError(null);
                setPhase('idle');
              }}
            >
              Not now
            </button>
            <button
              type="button"
              className={buttonClass('primary')}
              disabled={phase === 'starting'}
              onClick={() => void start()}
            >
              Start recording
            </button>
          </div>
        </div>
      ) : null}
      {phase === 'recording' || phase === 'paused' ? (
        <div className={styles.recorder__bar} role="group" aria-label="Recording controls">
          <span
            className={`${styles.recorder__dot}${phase === 'paused' ? ` ${styles['recorder__dot--paused']}` : ''}`}
          />
          <span className={styles.recorder__state}>
            {phase === 'paused' ? 'Paused' : 'Recording'}
          </span>
          <span className={styles.recorder__time} aria-label="Elapsed time">
            {formatMoment(elapsed)} / {limit}
          </span>
          <span className={styles.recorder__buttons}>
            {phase === 'paused' ? (
              <button type="button" className={buttonClass('secondary', 'sm')} onClick={resume}>
                Resume
              </button>
            ) : (
              <button type="button" className={buttonClass('secondary', 'sm')} onClick={pause}>
                Pause
              </button>
            )}
            <button
              type="button"
              className={buttonClass('secondary', 'sm')}
              onClick={mark}
              aria-keyshortcuts={showKey ? MARK_KEY : undefined}
              title={showKey ? `Mark moment (${MARK_KEY})` : undefined}
            >
              Mark moment{showKey ? <kbd>{MARK_KEY}</kbd> : null}
            </button>
            <button type="button" className={buttonClass('danger', 'sm')} onClick={() => stop()}>
              Stop
            </button>
            {onTop ? null : (
              <button
                type="button"
                className={buttonClass('ghost', 'sm')}
                onClick={() => void showFloating()}
              >
                Keep controls on top
              </button>
            )}
          </span>
          <span className={styles.recorder__source}>
            {onTop
              ? `The controls are also in a small window on top of the others (${onTop.kind === 'pip' ? 'picture-in-picture' : 'pop-up'}).`
              : (floatNote ??
                'Testing in another window? "Keep controls on top" puts them over it.')}
          </span>
          <span className={styles.recorder__source}>
            Sharing: {source} · Voice: {voice ? 'on' : 'off'}
          </span>
          <span className={styles.recorder__upload} aria-label="Upload">
            {uploadNote ?? `Uploaded as you record: ${mb(sent.sent)} of ${mb(sent.total)}`}
          </span>
          {/* The live picture of what is shared; muted, the tester hears themselves otherwise. */}
          <video
            ref={video}
            className={styles.recorder__live}
            autoPlay
            muted
            playsInline
            aria-hidden
          />
        </div>
      ) : null}
      {phase === 'uploading' ? (
        <div className={progressStyles['upload-progress']}>
          <label>
            Uploading the recording… {pct}% ({mb(Math.max(0, sent.total - sent.sent))} left)
            <progress max={100} value={pct} />
          </label>
          {uploadNote ? <p className="muted">{uploadNote}</p> : null}
        </div>
      ) : null}
      {phase === 'done' && attached ? (
        <p className="recorder__attached">
          Recording attached: {formatMoment(attached.duration_ms)}, {mb(attached.size_bytes)}.{' '}
          <button type="button" className={buttonClass('link', 'sm')} onClick={discard}>
            Remove recording
          </button>
        </p>
      ) : null}
      {preview && (phase === 'done' || phase === 'uploading' || phase === 'failed') ? (
        // eslint-disable-next-line jsx-a11y/media-has-caption -- the tester's own narration, played back to them
        <video
          className={styles.recorder__review}
          src={preview}
          controls
          aria-label="Your recording"
        />
      ) : null}
      {note ? (
        <p className={styles.recorder__note} role="status">
          {note}
        </p>
      ) : null}
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          {error}
        </p>
      ) : null}
      {onTop && (phase === 'recording' || phase === 'paused')
        ? createPortal(
            <RecorderControl
              paused={phase === 'paused'}
              elapsed={formatMoment(elapsed)}
              limit={limit}
              note={note}
              showKey={showKey}
              onMark={mark}
              onPause={pause}
              onResume={resume}
              onStop={() => stop()}
            />,
            onTop.win.document.body,
          )
        : null}
      {phase === 'failed' ? (
        <div className="form__actions">
          <button type="button" className={buttonClass('ghost')} onClick={discard}>
            Discard recording
          </button>
          {canRetry ? (
            <button
              type="button"
              className={buttonClass('primary')}
              onClick={() => {
                setError(null);
                setPhase('uploading');
                uploadState.current.failed = null;
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
