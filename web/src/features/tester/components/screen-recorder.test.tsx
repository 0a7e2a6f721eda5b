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
import type { ChunkKeeper, RecordingSource } from '../live-recording';
import { RecordingKeeperContext, RecordingUploaderContext } from './screen-recorder';
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
  /** A chunk as MediaRecorder hands it out every second while recording. */
  emit(bytes: string) {
    this.ondataavailable?.({ data: new Blob([bytes], { type: 'video/webm' }) });
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
/**
 * An uploader that reads the recording as the real one does (parts as they are recorded, to the
 * end) and answers each start() with the next outcome; `starts` counts them.
 */
function scriptedUploader(outcomes: Outcome[] = []) {
  const uploads: Array<{
    source: RecordingSource;
    meta: { jobId: string; fileType: string; uploadUrl?: string | null };
    starts: number;
    read: number;
  }> = [];
  const uploader: RecordingUploader = (source, meta, ev: UploadEvents) => {
    const u = { source, meta, starts: 0, read: 0 };
    uploads.push(u);
    return {
      start: () => {
        const outcome = outcomes[u.starts++] ?? 'ok';
        ev.onUrl(`/api/recordings/rec123`);
        void (async () => {
          for (;;) {
            const { value, done } = await source.slice(u.read, u.read + 5 * 1024 * 1024);
            u.read += value.size;
            ev.onProgress(u.read);
            if (done) break;
          }
          if (outcome === 'ok') ev.onSuccess('rec123');
          else ev.onError(outcome.status, outcome.detail ?? null);
        })().catch(() => undefined); // aborted: the form was closed
      },
      abort: () => source.close(),
    };
  };
  return { uploader, uploads };
}

const job = jobView();
const limits = (max_ms = 600_000) => ({
  body: { jobs: [], recording_limits: { max_ms, max_bytes: 500 * 1024 * 1024 } },
});

function renderWith(uploader: RecordingUploader, ui: ReactElement, keeper?: ChunkKeeper) {
  return renderWithStore(
    <RecordingKeeperContext.Provider value={keeper ?? null}>
      <RecordingUploaderContext.Provider value={uploader}>{ui}</RecordingUploaderContext.Provider>
    </RecordingKeeperContext.Provider>,
  );
}

/** IndexedDB's part, in memory (jsdom has none): what survives the "reload" below. */
function memoryKeeper(): ChunkKeeper & {
  kept: Map<string, { blobs: Blob[]; ms: number; stopped: boolean }>;
} {
  const kept = new Map<string, { blobs: Blob[]; ms: number; stopped: boolean }>();
  return {
    kept,
    add: async (key, seq, chunk, ms) => {
      const k = kept.get(key) ?? { blobs: [], ms: 0, stopped: false };
      k.blobs[seq] = chunk;
      k.ms = ms;
      kept.set(key, k);
    },
    stopped: async (key, ms) => {
      const k = kept.get(key);
      if (k) Object.assign(k, { ms, stopped: true });
    },
    load: async (key) => {
      const k = kept.get(key);
      return k
        ? {
            blobs: k.blobs,
            size: k.blobs.reduce((n, b) => n + b.size, 0),
            duration_ms: k.ms,
            stopped: k.stopped,
          }
        : null;
    },
    remove: async (key) => void kept.delete(key),
    prune: async () => undefined,
  };
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
    expect(uploads[0].meta).toEqual({
      jobId: job.id,
      fileType: 'video/webm;codecs=vp9,opus',
      uploadUrl: null,
    });
    expect(uploads[0].source.finished).toBe(true);
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

  it('uploads while recording: the parts recorded so far are sent before Stop, and Stop leaves only the rest', async () => {
    mockFetch(() => limits());
    const { uploader, uploads } = scriptedUploader();
    renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
    await startRecording();
    expect(uploads).toHaveLength(1); // the upload starts with the recording (deferred length)
    act(() => FakeRecorder.last!.emit('x'.repeat(1024 * 1024))); // a full part: sent at once
    await waitFor(() => expect(uploads[0].read).toBe(1024 * 1024));
    await screen.findByText('Uploaded as you record: 1.0 MB of 1.0 MB');
    expect(uploads[0].source.finished).toBe(false);
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await screen.findByText(/Recording attached: 0:00, 1.0 MB/);
    expect(uploads[0].read).toBe(1024 * 1024 + 'webm bytes'.length);
    expect(uploads[0].source.finished).toBe(true);
  });

  it('after a reload, finishes the upload from the chunks this browser kept and the upload URL the draft kept', async () => {
    mockFetch(() => limits());
    const keeper = memoryKeeper();
    const first = scriptedUploader();
    const page = renderWith(
      first.uploader,
      <SubmitWorkModal job={job} onClose={() => undefined} />,
      keeper,
    );
    await startRecording();
    advance(2000);
    act(() => FakeRecorder.last!.emit('first two seconds'));
    await waitFor(() => expect(keeper.kept.size).toBe(1));
    // The page is reloaded while recording: nothing more runs on it (no last chunk, no stop event).
    Object.assign(FakeRecorder.last!, { ondataavailable: null, onstop: null });
    page.unmount();

    const second = scriptedUploader();
    renderWith(second.uploader, <SubmitWorkModal job={job} onClose={() => undefined} />, keeper);
    const prompt = await screen.findByRole('group', { name: 'Unfinished recording' });
    expect(prompt.textContent).toContain(
      'The page was closed or reloaded while you were recording. What was recorded until then (0:02, 0.0 MB) was kept in this browser',
    );
    // Submit waits for it (or for a discard).
    await userEvent.type(screen.getByLabelText('Feedback'), 'The price shows only in the cart.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Price hidden');
    await userEvent.click(screen.getByRole('button', { name: 'Submit Work' }));
    expect(screen.getByText(/The recording has not been uploaded/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Upload the recording' }));
    await screen.findByText(/Recording attached: 0:02/);
    expect(second.uploads[0].meta.uploadUrl).toBe('/api/recordings/rec123'); // resumed, not created anew
    expect(second.uploads[0].source.size).toBe('first two seconds'.length);
    expect(keeper.kept.size).toBe(0); // uploaded: the browser's copy is gone
  });

  it('says the recording is lost when the browser kept nothing across the reload, and offers to record again', async () => {
    mockFetch(() => limits());
    const page = renderWith(
      scriptedUploader().uploader,
      <SubmitWorkModal job={job} onClose={() => undefined} />,
    );
    await startRecording();
    page.unmount();
    renderWith(
      scriptedUploader().uploader,
      <SubmitWorkModal job={job} onClose={() => undefined} />,
    );
    expect((await screen.findByRole('alert')).textContent).toContain(
      'The recording that was uploading when the page was closed or reloaded is lost',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Record again' }));
    expect(screen.getByRole('button', { name: 'Start recording' })).toBeTruthy();
  });

  it("shows the server's refusal of the upload (413) with its message", async () => {
    mockFetch(() => limits());
    const { uploader } = scriptedUploader([
      { status: 413, detail: 'Recording size must be less than 500MB' },
    ]);
    renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
    await startRecording();
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(
      (await screen.findByText('Recording size must be less than 500MB')).getAttribute('role'),
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

describe('the recorder’s control on top of the tested site', () => {
  /** A real same-origin window (an iframe's) standing in for the pop-up or the PiP window. */
  const floatingWindow = () => {
    const frame = document.createElement('iframe');
    document.body.append(frame);
    const win = frame.contentWindow!;
    jest.spyOn(win, 'close').mockImplementation(() => {
      win.dispatchEvent(new Event('pagehide'));
    });
    return win;
  };
  afterEach(() => {
    delete (window as { documentPictureInPicture?: unknown }).documentPictureInPicture;
  });

  it.each(['pip', 'popup'] as const)(
    'opens a small window (%s) with the time, Mark moment, Pause and Stop, which act on the recording',
    async (kind) => {
      mockFetch(() => limits());
      const { uploader } = scriptedUploader();
      const win = floatingWindow();
      const requestWindow = jest.fn(async (_size: { width: number; height: number }) => win);
      const open = jest.spyOn(window, 'open').mockImplementation(() => win);
      if (kind === 'pip')
        (window as { documentPictureInPicture?: unknown }).documentPictureInPicture = {
          requestWindow,
          window: null,
        };
      renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
      await userEvent.click(screen.getByRole('button', { name: 'Record your screen' }));
      // The consent says to open the site in another window first.
      expect(recorder().textContent).toContain(
        'open the site you test in another window (or tab) first',
      );
      await userEvent.click(screen.getByRole('button', { name: 'Start recording' }));
      await screen.findByRole('group', { name: 'Recording controls' });
      await userEvent.click(screen.getByRole('button', { name: 'Keep controls on top' }));
      const control = await waitFor(() => {
        const c = win.document.querySelector('[aria-label="Recording controls"]');
        expect(c).toBeTruthy();
        return c as HTMLElement;
      });
      if (kind === 'pip') {
        expect(requestWindow).toHaveBeenCalledWith({ width: 340, height: 170 });
        expect(open).not.toHaveBeenCalled();
      } else
        expect(open).toHaveBeenCalledWith(
          '',
          'humantest-recorder',
          expect.stringContaining('popup'),
        );
      expect(win.document.title).toBe('Recording · HumanTest');
      const button = (name: string) =>
        Array.from(control.querySelectorAll('button')).find((b) =>
          b.textContent?.startsWith(name),
        )!;
      advance(2000);
      await waitFor(() =>
        expect(control.querySelector('[aria-label="Elapsed time"]')!.textContent).toBe(
          '0:02 / 10:00',
        ),
      );
      await act(async () => button('Mark moment').click());
      await waitFor(() =>
        expect(control.querySelector('[role="status"]')!.textContent).toBe(
          'Marked 0:02 on Key finding 1. Describe it there.',
        ),
      );
      await act(async () => button('Pause').click());
      expect(FakeRecorder.last!.state).toBe('paused');
      await waitFor(() => expect(control.textContent).toContain('Paused'));
      await act(async () => button('Resume').click());
      expect(FakeRecorder.last!.state).toBe('recording');
      await act(async () => button('Stop').click());
      await screen.findByText(/Recording attached/);
      // Stopped: the small window closes.
      expect(win.close).toHaveBeenCalled();
    },
  );

  it('says how to get the control when the browser blocks the small window', async () => {
    mockFetch(() => limits());
    const { uploader } = scriptedUploader();
    jest.spyOn(window, 'open').mockImplementation(() => null);
    renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
    await startRecording();
    await userEvent.click(screen.getByRole('button', { name: 'Keep controls on top' }));
    expect(
      await screen.findByText(/The small window on top was blocked: allow pop-ups for this site/),
    ).toBeTruthy();
  });

  it('does not offer the Alt+M shortcut on a touch screen', async () => {
    mockFetch(() => limits());
    const { uploader } = scriptedUploader();
    Object.defineProperty(window, 'matchMedia', {
      configurable: true,
      value: (q: string) => ({ matches: q === '(pointer: coarse)' }),
    });
    try {
      renderWith(uploader, <SubmitWorkModal job={job} onClose={() => undefined} />);
      await startRecording();
      const mark = screen.getByRole('button', { name: 'Mark moment' });
      expect(mark.querySelector('kbd')).toBeNull();
      expect(mark.getAttribute('aria-keyshortcuts')).toBeNull();
    } finally {
      delete (window as { matchMedia?: unknown }).matchMedia;
    }
  });
});
