import { authHeaders, buildUrl, recoverFrom401 } from '../../lib/base-query';
import { getToken } from '../../lib/tokens';
import type { RecordingSource } from './live-recording';

/**
 * The tester's screen recording (issue #30): what the recorder can use in this browser, the
 * messages it shows, and the resumable upload to the jobs service (tus 1.0 at /api/recordings).
 */

/** What the tester's draft keeps of an uploaded recording (submitted as `recording_id`). */
export interface AttachedRecording {
  id: string;
  duration_ms: number;
  size_bytes: number;
}

/** The container MediaRecorder writes, best first: WebM (VP9 or VP8 with Opus), else MP4 (Safari). */
export const RECORDING_TYPES = [
  'video/webm;codecs=vp9,opus',
  'video/webm;codecs=vp8,opus',
  'video/webm',
  'video/mp4',
] as const;

export function pickRecordingType(
  isSupported: (type: string) => boolean = (t) => MediaRecorder.isTypeSupported(t),
): string | undefined {
  return RECORDING_TYPES.find((t) => isSupported(t));
}

/** Whether this browser can record the screen at all (phones and some browsers cannot). */
export function canRecordScreen(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    typeof navigator.mediaDevices?.getDisplayMedia === 'function' &&
    typeof MediaRecorder !== 'undefined'
  );
}

/** The shared source in words, from the video track's displaySurface and label. */
export function describeSource(track: MediaStreamTrack): string {
  const surface = (track.getSettings() as { displaySurface?: string }).displaySurface;
  const kind =
    surface === 'monitor'
      ? 'Entire screen'
      : surface === 'window'
        ? 'A window'
        : surface === 'browser'
          ? 'A browser tab'
          : 'Shared screen';
  return track.label ? `${kind} (${track.label})` : kind;
}

export const RECORDER_MESSAGES = {
  unsupported:
    'Your browser cannot record the screen (phones and some browsers cannot). Use a desktop Chrome, Edge or Firefox to record, or attach a screenshot instead.',
  screenDenied:
    'Screen sharing was not allowed, so nothing is being recorded. Click "Start recording" again and pick a screen, window or tab. If your browser no longer asks, allow screen sharing for this site in its settings (the icon at the left of the address bar).',
  screenFailed:
    'The screen could not be shared. Close other apps that record the screen and try again.',
  micDenied:
    'The microphone was not allowed: recording without your voice. To add your voice, allow the microphone for this site (the icon at the left of the address bar) and record again.',
  noMic: 'No microphone found: recording without your voice.',
  noRecorder: 'This browser cannot record video in a format the poster can play (WebM or MP4).',
  limitReached: (limit: string) => `The recording stopped itself at the ${limit} limit.`,
  sizeLimitReached: (size: string) =>
    `The recording stopped itself at ${size}, the most that can be uploaded.`,
  sharingEnded: 'Screen sharing ended, so the recording stopped.',
  tooLarge: (mb: number) =>
    `This recording is larger than ${mb} MB, the most that can be uploaded. Record a shorter session.`,
  uploadDropped:
    'The upload stopped: the connection dropped. "Retry upload" continues from where it stopped.',
  uploadWaiting:
    'Upload paused: the connection dropped. It goes on by itself when the connection is back; the recording continues.',
  interrupted: (length: string, size: string, stopped: boolean) =>
    stopped
      ? `Your recording (${length}, ${size}) had not finished uploading when the page was closed or reloaded. It was kept in this browser: upload the rest now.`
      : `The page was closed or reloaded while you were recording. What was recorded until then (${length}, ${size}) was kept in this browser: upload it, or discard it and record again.`,
  lost: 'The recording that was uploading when the page was closed or reloaded is lost: this browser could not keep it. Record again, or submit without a recording.',
  uploadFailed: 'The recording could not be uploaded.',
  stillRecording: 'Stop the recording before submitting.',
  stillUploading: 'The recording is still uploading. Please wait until it has finished.',
  notUploaded:
    'The recording has not been uploaded. Retry the upload, or discard the recording to submit without it.',
  allMarked: 'All three findings already have a moment. Remove one to mark another.',
  floatingBlocked:
    'The small window on top was blocked: allow pop-ups for this site and press "Keep controls on top" again, or keep this tab beside the site you test.',
  marked: (at: string, n: number) => `Marked ${at} on Key finding ${n}. Describe it there.`,
} as const;

/** A getDisplayMedia failure in words: a refusal explains how to allow it. */
export function screenErrorMessage(err: unknown): string {
  const name = (err as { name?: string } | null)?.name;
  return name === 'NotAllowedError' || name === 'SecurityError'
    ? RECORDER_MESSAGES.screenDenied
    : RECORDER_MESSAGES.screenFailed;
}

/** A microphone failure in words (recording goes on without voice). */
export function micErrorMessage(err: unknown): string {
  const name = (err as { name?: string } | null)?.name;
  return name === 'NotFoundError' || name === 'OverconstrainedError'
    ? RECORDER_MESSAGES.noMic
    : RECORDER_MESSAGES.micDenied;
}

export interface UploadEvents {
  /** Bytes the server has (or is receiving) of the recording. */
  onProgress: (sent: number) => void;
  /** The upload's URL, once the server created it (the draft keeps it so a reload can resume). */
  onUrl: (url: string) => void;
  onSuccess: (recordingId: string) => void;
  /** status 0: the network; otherwise the server's answer and its `detail` when it sent one. */
  onError: (status: number, detail: string | null) => void;
}

export interface RecordingUpload {
  /** Starts, or resumes from the offset the server has (HEAD), after a failure. */
  start: () => void;
  abort: () => void;
}

export type RecordingUploader = (
  source: RecordingSource,
  meta: { jobId: string; fileType: string; uploadUrl?: string | null },
  events: UploadEvents,
) => RecordingUpload;

/** The JSON error shape `{detail, code}` of an answer, when it is one. */
function errorBody(text: string | undefined): { detail?: string; code?: string } | null {
  try {
    const v: unknown = text ? JSON.parse(text) : null;
    return v && typeof v === 'object' ? (v as { detail?: string; code?: string }) : null;
  } catch {
    return null;
  }
}

/** At most 5 MB per PATCH: a dropped connection costs at most one chunk, proxies never buffer a whole video. */
const CHUNK_BYTES = 5 * 1024 * 1024;

/**
 * tus 1.0 through tus-js-client (loaded when the first recording starts), following the
 * recording: creation with `Upload-Defer-Length: 1` and metadata `job_id` / `filetype` as soon
 * as recording starts, PATCHes of what has been recorded so far (the source hands out parts as
 * MediaRecorder produces them, up to CHUNK_BYTES), and the final PATCH declares `Upload-Length`
 * once the recording has stopped. Network errors retry with backoff; `start()` again resumes
 * from the server's offset (HEAD), and so does a new upload given the `uploadUrl` a draft kept.
 * Every request carries the same headers as the app's other calls; a 401 refreshes the token once.
 */
export const tusUploader: RecordingUploader = (source, meta, events) => {
  let upload: import('tus-js-client').Upload | null = null;
  let refreshed = false;
  let aborted = false;
  const start = async () => {
    const { Upload } = await import('tus-js-client');
    if (aborted) return;
    upload ??= new Upload(source as unknown as Blob, {
      endpoint: buildUrl('/recordings'),
      uploadUrl: meta.uploadUrl ?? null,
      uploadLengthDeferred: true,
      fileReader: {
        openFile: async () => ({
          size: null as unknown as number,
          slice: (s: number, e: number) => source.slice(s, e),
          close: () => undefined,
        }),
      },
      fingerprint: async () => null as unknown as string,
      metadata: { job_id: meta.jobId, filetype: meta.fileType },
      chunkSize: CHUNK_BYTES,
      retryDelays: [0, 1000, 3000, 5000],
      storeFingerprintForResuming: false,
      onBeforeRequest: (req) => {
        for (const [k, v] of Object.entries(authHeaders(getToken()))) req.setHeader(k, v);
        const xhr = req.getUnderlyingObject() as XMLHttpRequest | undefined;
        if (xhr && 'withCredentials' in xhr) xhr.withCredentials = true;
      },
      onUploadUrlAvailable: () => {
        if (upload?.url) events.onUrl(upload.url);
      },
      onProgress: (sent) => events.onProgress(sent),
      onSuccess: () => events.onSuccess(upload?.url?.split('/').pop() ?? ''),
      onError: (err) => {
        if (aborted) return;
        const res = (
          err as { originalResponse?: { getStatus(): number; getBody(): string } | null }
        ).originalResponse;
        const status = res?.getStatus() ?? 0;
        const body = errorBody(res?.getBody());
        if (status === 401 && !refreshed) {
          refreshed = true;
          void recoverFrom401(getToken(), body?.code).then((fresh) =>
            fresh ? upload?.start() : events.onError(401, body?.detail ?? null),
          );
          return;
        }
        events.onError(status, body?.detail ?? null);
      },
    });
    upload.start();
  };
  return {
    start: () => void start(),
    abort: () => {
      aborted = true;
      source.close();
      void upload?.abort().catch(() => undefined);
    },
  };
};
