import '../../../test/setup';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { setToken } from '../../../lib/tokens';
import { jobView } from '../../../test/job-view';
import { renderWithStore } from '../../../test/render';
import { mockFetch, mockXhr, resetStorage } from '../../../test/setup';
import type { RecordingUploader, UploadEvents } from '../recording';
import { RecordingUploaderContext } from './screen-recorder';
import { SubmitReportModal } from './submit-report-modal';
import { SubmitWorkModal } from './submit-work-modal';

/*
 * The browser's capture APIs are faked at their edges (getDisplayMedia, getUserMedia,
 * MediaRecorder) and the clock is Date.now; the upload is a scripted uploader. The real ones run
 * in web/e2e/recording.test.ts.
 */

class FakeTrack {
  stopped = false;
  private listeners: Record<string, () => void> = {};
  constructor(
    readonly kind: 'video' | 'audio',
    readonly label: string,
    private surface?: string,
  ) {}
  getSettings() {
    return { displaySurface: this.surface };
  }
  stop() {
    this.stopped = true;
  }
  addEventListener(type: string, f: () => void) {
    this.listeners[type] = f;
  }
  fire(type: string) {
    this.listeners[type]?.();
  }
}

class FakeStream {
  constructor(private tracks: FakeTrack[] = []) {}
  getTracks() {
    return this.tracks;
  }
  getVideoTracks() {
    return this.tracks.filter((t) => t.kind === 'video');
  }
  getAudioTracks() {
    return this.tracks.filter((t) => t.kind === 'audio');
  }
}

class FakeRecorder {
  static last: FakeRecorder | null = null;
  static isTypeSupported = (t: string) => t.startsWith('video/webm');
  state = 'inactive';
  mimeType: string;
  ondataavailable: ((e: { data: Blob }) => void) | null = null;
  onstop: (() => void) | null = null;
  constructor(
    readonly stream: FakeStream,
    opts: { mimeType: string },
  ) {
    this.mimeType = opts.mimeType;
    FakeRecorder.last = this;
  }
  start() {
    this.state = 'recording';
  }
  pause() {
    this.state = 'paused';
  }
  resume() {
    this.state = 'recording';
  }
  stop() {
    this.state = 'inactive';
    this.ondataavailable?.({ data: new Blob(['webm bytes'], { type: 'video/webm' }) });
    this.onstop?.();
  }
}

const g = globalThis as Record<string, unknown>;
let now = 1_000_000;
let screenTrack: FakeTrack;
let micTrack: FakeTrack;
const media = {
  getDisplayMedia: jest.fn<() => Promise<FakeStream>>(),
  getUserMedia: jest.fn<() => Promise<FakeStream>>(),
};

type Outcome = 'ok' | { status: number; detail?: string };
/** An uploader that answers each start() with the next outcome; `starts` counts them. */
function scriptedUploader(outcomes: Outcome[] = []) {
  const uploads: Array<{ file: Blob; meta: { jobId: string; fileType: string }; starts: number }> =
    [];
  const uploader: RecordingUploader = (file, meta, ev: UploadEvents) => {
    const u = { file, meta, starts: 0 };
    uploads.push(u);
    return {
      start: () => {
        const outcome = outcomes[u.starts++] ?? 'ok';
        ev.onProgress(Math.floor(file.size / 2), file.size);
        setTimeout(() =>
          outcome === 'ok'
            ? ev.onSuccess('rec123')
            : ev.onError(outcome.status, outcome.detail ?? null),
        );
      },
      abort: () => undefined,
    };
  };
  return { uploader, uploads };
}

const job = jobView();
const limits = (max_ms = 600_000) => ({
  body: { jobs: [], recording_limits: { max_ms, max_bytes: 500 * 1024 * 1024 } },
});

function renderWith(uploader: RecordingUploader, ui: ReactElement) {
  return renderWithStore(
    <RecordingUploaderContext.Provider value={uploader}>{ui}</RecordingUploaderContext.Provider>,
  );
}

const advance = (ms: number) =>
  act(() => {
    now += ms;
  });
const recorder = () => screen.getByRole('region', { name: 'Screen recording' });
const startRecording = async () => {
  await userEvent.click(screen.getByRole('button', { name: 'Record your screen' }));
  await userEvent.click(screen.getByRole('button', { name: 'Start recording' }));
  await screen.findByRole('group', { name: 'Recording controls' });
};
const elapsed = (text: string) =>
  waitFor(() => expect(screen.getByLabelText('Elapsed time').textContent).toBe(text));

beforeEach(() => {
  resetStorage();
  setToken('tester-token');
  now = 1_000_000;
  jest.spyOn(Date, 'now').mockImplementation(() => now);
  screenTrack = new FakeTrack('video', 'Bakery tab', 'browser');
  micTrack = new FakeTrack('audio', 'Default microphone');
  media.getDisplayMedia.mockReset().mockResolvedValue(new FakeStream([screenTrack]));
  media.getUserMedia.mockReset().mockResolvedValue(new FakeStream([micTrack]));
  Object.defineProperty(navigator, 'mediaDevices', { value: media, configurable: true });
  g.MediaRecorder = FakeRecorder;
  g.MediaStream = FakeStream;
  FakeRecorder.last = null;
});
afterEach(() => {
  jest.restoreAllMocks();
});

describe('screen recorder in Submit Work', () => {
  it('records after the consent note, marks moments on the findings (button and Alt+M), leaves paused time out, uploads on stop and submits recording_id with the moments', async () => {
    mockFetch(() => limits());
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    const { uploader, uploads } = scriptedUploader();
    let closed = false;
    renderWith(uploader, <SubmitWorkModal job={job} onClose={() => (closed = true)} />);

    await userEvent.click(screen.getByRole('button', { name: 'Record your screen' }));
    expect(recorder().textContent).toContain('Close private tabs');
    expect(media.getDisplayMedia).not.toHaveBeenCalled(); // nothing is shared before Start
    await userEvent.click(screen.getByRole('button', { name: 'Start recording' }));
    await screen.findByText('Sharing: A browser tab (Bakery tab) · Voice: on');
    expect(FakeRecorder.last!.mimeType).toBe('video/webm;codecs=vp9,opus');
    expect(FakeRecorder.last!.stream.getTracks()).toEqual([screenTrack, micTrack]);

    advance(3000);
    await elapsed('0:03 / 10:00');
    await userEvent.click(screen.getByRole('button', { name: /Mark moment/ }));
    expect(screen.getByRole('status').textContent).toBe(
      'Marked 0:03 on Key finding 1. Describe it there.',
    );

    await userEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(recorder().textContent).toContain('Paused');
    advance(5000); // paused: not counted
    await userEvent.click(screen.getByRole('button', { name: 'Resume' }));
    advance(1000);
    await elapsed('0:04 / 10:00');
    await userEvent.keyboard('{Alt>}m{/Alt}');
    await screen.findByText('Marked 0:04 on Key finding 2. Describe it there.');

    // Submit waits for the recording.
    await userEvent.type(screen.getByLabelText('Feedback'), 'The price shows only in the cart.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Price hidden');
    await userEvent.type(screen.getByLabelText(/Key finding 2/), 'Cart badge lags');
    await userEvent.click(screen.getByRole('button', { name: 'Submit Work' }));
    expect(screen.getByText('Stop the recording before submitting.')).toBeTruthy();
    expect(calls).toHaveLength(0);

    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await screen.findByText(/Recording attached: 0:04/);
    expect(uploads).toHaveLength(1);
    expect(uploads[0].meta).toEqual({ jobId: job.id, fileType: 'video/webm;codecs=vp9,opus' });
    expect(uploads[0].file.type).toBe('video/webm');
    expect(screenTrack.stopped && micTrack.stopped).toBe(true); // the devices are released
    expect(screen.getByText('at 0:03 in the recording')).toBeTruthy();
    expect(screen.getByText('at 0:04 in the recording')).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Submit Work' }));
    await waitFor(() => expect(closed).toBe(true));
    const form = calls[0].form;
    expect(form.get('recording_id')).toBe('rec123');
    expect(form.get('key_finding_1_at_ms')).toBe('3000');
    expect(form.get('key_finding_2_at_ms')).toBe('4000');
    expect(form.get('key_finding_3_at_ms')).toBeNull();
  });

  it('explains how to allow screen sharing when it is refused, and records nothing', async () => {
    mockFetch(() => limits());
    media.getDisplayMedia.mockRejectedValue(
      Object.assign(new Error('denied'), { name: 'NotAllowedError' }),
    );
    renderWith(
      scriptedUploader().uploader,
      <SubmitWorkModal job={job} onClose={() => undefined} />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Record your screen' }));
    await userEvent.click(screen.getByRole('button', { name: 'Start recording' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(
      'Screen sharing was not allowed, so nothing is being recorded.',
    );
    expect(alert.textContent).toContain('allow screen sharing for this site');
    expect(FakeRecorder.last).toBeNull();
    expect(screen.getByRole('button', { name: 'Start recording' })).toBeTruthy(); // try again
  });

  it('records without voice when there is no microphone, and says so', async () => {
    mockFetch(() => limits());
    media.getUserMedia.mockRejectedValue(
      Object.assign(new Error('none'), { name: 'NotFoundError' }),
    );
    renderWith(
      scriptedUploader().uploader,
      <SubmitWorkModal job={job} onClose={() => undefined} />,
    );
    await startRecording();
    expect(screen.getByText(/Voice: off/)).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe(
      'No microphone found: recording without your voice.',
    );
    expect(FakeRecorder.last!.stream.getTracks()).toEqual([screenTrack]);
  });

  it('records the screen alone when the tester unticks their voice', async () => {
    mockFetch(() => limits());
    renderWith(
      scriptedUploader().uploader,
      <SubmitWorkModal job={job} onClose={() => undefined} />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Record your screen' }));
    await userEvent.click(screen.getByLabelText('Record my voice (microphone)'));
    await userEvent.click(screen.getByRole('button', { name: 'Start recording' }));
    await screen.findByText(/Voice: off/);
    expect(media.getUserMedia).not.toHaveBeenCalled();
  });

  it('stops itself at RECORDING_MAX_MS from the job list, and uploads (detailed report: recording_id sent too)', async () => {
    mockFetch(() => limits(5000));
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    const { uploader, uploads } = scriptedUploader();
    const reportJob = jobView({ id: 'job-2', requirements: ['Find the price'] });
    renderWith(uploader, <SubmitReportModal job={reportJob} onClose={() => undefined} />);
    await screen.findByText(/Up to 0:05\./); // the limit from GET /api/tester/my-jobs
    await startRecording();
    advance(5000);
    await screen.findByText('The recording stopped itself at the 0:05 limit.');
    await screen.findByText(/Recording attached: 0:05/);
    expect(uploads).toHaveLength(1);

    await userEvent.type(screen.getByLabelText('1. Find the price'), 'In the footer, hard to see');
    await userEvent.type(screen.getByLabelText('Device used'), 'Laptop');
    await userEvent.type(screen.getByLabelText('Browser used'), 'Chromium');
    for (const n of [1, 2, 3])
      await userEvent.type(screen.getByLabelText(`Key finding ${n}`), `Finding ${n}`);
    await userEvent.click(screen.getByRole('button', { name: 'Submit Work' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].url).toContain('/submissions');
    expect(calls[0].form.get('recording_id')).toBe('rec123');
  });

  it('stops when the tester ends sharing from the browser bar', async () => {
    mockFetch(() => limits());
    const { uploader, uploads } = scriptedUploader();
    renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
    await startRecording();
    act(() => screenTrack.fire('ended'));
    await screen.findByText('Screen sharing ended, so the recording stopped.');
    await waitFor(() => expect(uploads).toHaveLength(1));
  });

  it('says a dropped upload resumes, blocks Submit until then, and "Retry upload" resumes it', async () => {
    mockFetch(() => limits());
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    const { uploader, uploads } = scriptedUploader([{ status: 0 }, 'ok']);
    renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
    await startRecording();
    advance(2000);
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    const alert = await screen.findByText(/The upload stopped: the connection dropped/);
    expect(alert.textContent).toContain('"Retry upload" continues from where it stopped.');
    await userEvent.type(screen.getByLabelText('Feedback'), 'The price shows only in the cart.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Price hidden');
    await userEvent.click(screen.getByRole('button', { name: 'Submit Work' }));
    expect(
      screen.getByText(
        'The recording has not been uploaded. Retry the upload, or discard the recording to submit without it.',
      ),
    ).toBeTruthy();
    expect(calls).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Retry upload' }));
    await screen.findByText(/Recording attached: 0:02/);
    expect(uploads).toHaveLength(1); // the same upload, started again (tus resumes from its offset)
    expect(uploads[0].starts).toBe(2);
  });

  it("shows the server's refusal of the upload (413) with its message", async () => {
    mockFetch(() => limits());
    const { uploader } = scriptedUploader([
      { status: 413, detail: 'Recordings may be at most 500 MB.' },
    ]);
    renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
    await startRecording();
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(
      (await screen.findByText('Recordings may be at most 500 MB.')).getAttribute('role'),
    ).toBe('alert');
    await userEvent.click(screen.getByRole('button', { name: 'Discard recording' }));
    expect(screen.getByRole('button', { name: 'Record your screen' })).toBeTruthy();
  });

  it('explains why on a browser without screen capture and keeps the screenshot', () => {
    mockFetch(() => limits());
    Object.defineProperty(navigator, 'mediaDevices', { value: {}, configurable: true });
    renderWith(
      scriptedUploader().uploader,
      <SubmitWorkModal job={job} onClose={() => undefined} />,
    );
    expect(recorder().textContent).toContain(
      'Your browser cannot record the screen (phones and some browsers cannot).',
    );
    expect(screen.queryByRole('button', { name: 'Record your screen' })).toBeNull();
    expect(screen.getByLabelText(/Screenshot/)).toBeTruthy();
  });
});
