import { spawn } from 'node:child_process';

/**
 * Runs a program, resolving with its stdout; rejects with its stderr's tail on failure. ENOENT
 * when missing. `onLine` sees every line of stderr (ffmpeg's filters log there).
 */
function run(
  cmd: string,
  args: string[],
  timeoutMs: number,
  onLine?: (line: string) => void,
): Promise<string> {
  return runBytes(cmd, args, timeoutMs, onLine).then((b) => b.toString());
}

/** `run`, answering stdout's bytes (a picture ffmpeg writes to a pipe). */
function runBytes(
  cmd: string,
  args: string[],
  timeoutMs: number,
  onLine?: (line: string) => void,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let partial = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      err = (err + text).slice(-2000);
      if (!onLine) return;
      const lines = (partial + text).split(/\r|\n/);
      partial = lines.pop() ?? '';
      lines.forEach(onLine);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (partial && onLine) onLine(partial);
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new Error(`${cmd} exited with ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`),
        );
    });
  });
}

/** A stretch of a recording, in ms from its start. */
export interface Stretch {
  startMs: number;
  endMs: number;
}

/** What the session checks measure in a recording (silences and still screens of at least `minMs`). */
export interface RecordingFacts {
  durationMs: number | null;
  hasAudio: boolean;
  hasVideo: boolean;
  /** Stretches without sound above `noiseDb` (no audio track: the whole recording). */
  silences: Stretch[];
  /** Stretches where the picture does not change (no video track: the whole recording). */
  stills: Stretch[];
}

export interface AnalyseOptions {
  /** Quieter than this (dBFS) is silence. */
  noiseDb: number;
  /** Silences and still screens shorter than this are not reported. */
  minMs: number;
  /** Picture difference (0-1) below which the screen counts as unchanged. */
  freezeNoise: number;
  /** Frames compared per second (at least two per `minMs`; the video is sampled at this rate, 320 px wide). */
  fps: number;
}

export interface MediaTools {
  /** Rewrites the container without re-encoding (`-c copy`): WebM gets cues and a duration, MP4 its index up front. */
  remux(input: string, output: string, container: 'webm' | 'mp4'): Promise<void>;
  /** The duration in ms (ffprobe), or null when the file says none. */
  durationMs(file: string): Promise<number | null>;
  /**
   * Silences (ffmpeg `silencedetect` over the audio alone) and still screens (`freezedetect` over
   * the video sampled at `fps`, scaled down, without the decoder's loop filter): one ffmpeg run
   * that decodes as little as the checks need.
   */
  analyse(file: string, opts: AnalyseOptions): Promise<RecordingFacts>;
  /** One frame at `atMs` as a PNG `width` px wide (seeking in the input: it decodes from the nearest key frame only). */
  frameAt(file: string, atMs: number, width: number): Promise<Buffer>;
}

const secondsIn = (line: string, key: string): number | null => {
  const m = new RegExp(`${key}: *(-?[0-9.]+)`).exec(line);
  return m ? Math.round(Number.parseFloat(m[1]) * 1000) : null;
};

/** Stretches from ffmpeg's start/end lines; one still open at the end lasts until `endMs`. */
function stretches(starts: number[], ends: number[], endMs: number | null): Stretch[] {
  return starts.map((s, i) => ({
    startMs: Math.max(0, s),
    endMs: ends[i] ?? endMs ?? s,
  }));
}

export function ffmpegTools(ffmpeg: string, ffprobe: string, timeoutMs = 10 * 60_000): MediaTools {
  return {
    async remux(input, output, container) {
      const args = [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-i',
        input,
        '-map',
        '0',
        '-c',
        'copy',
      ];
      if (container === 'mp4') args.push('-movflags', '+faststart', '-f', 'mp4');
      else args.push('-f', 'webm');
      await run(ffmpeg, [...args, output], timeoutMs);
    },
    async durationMs(file) {
      const out = await run(
        ffprobe,
        [
          '-v',
          'error',
          '-show_entries',
          'format=duration',
          '-of',
          'default=noprint_wrappers=1:nokey=1',
          file,
        ],
        60_000,
      );
      const s = Number.parseFloat(out.trim());
      return Number.isFinite(s) ? Math.round(s * 1000) : null;
    },
    async frameAt(file, atMs, width) {
      return runBytes(
        ffmpeg,
        [
          '-hide_banner',
          '-loglevel',
          'error',
          '-ss',
          (Math.max(0, atMs) / 1000).toFixed(3),
          '-i',
          file,
          '-frames:v',
          '1',
          '-vf',
          `scale=${width}:-2`,
          '-f',
          'image2pipe',
          '-c:v',
          'png',
          '-',
        ],
        60_000,
      );
    },
    async analyse(file, opts) {
      const probe = await run(
        ffprobe,
        ['-v', 'error', '-show_entries', 'stream=codec_type:format=duration', '-of', 'json', file],
        60_000,
      );
      const info = JSON.parse(probe) as {
        streams?: Array<{ codec_type?: string }>;
        format?: { duration?: string };
      };
      const types = new Set((info.streams ?? []).map((st) => st.codec_type));
      const hasAudio = types.has('audio');
      const hasVideo = types.has('video');
      let durationMs: number | null = null;
      const probed = Number.parseFloat(info.format?.duration ?? '');
      if (Number.isFinite(probed)) durationMs = Math.round(probed * 1000);
      const minS = (opts.minMs / 1000).toFixed(3);
      // freezedetect reports a freeze whenever two compared frames lie `d` or more apart, changed or
      // not: compare at least two frames per `d`.
      const fps = Math.max(opts.fps, 2000 / opts.minMs);
      const graph: string[] = [];
      const maps: string[] = [];
      if (hasAudio) {
        graph.push(`[0:a:0]silencedetect=n=${opts.noiseDb}dB:d=${minS}[a]`);
        maps.push('-map', '[a]');
      }
      if (hasVideo) {
        graph.push(
          `[0:v:0]fps=${fps.toFixed(3)},scale=320:-2:flags=fast_bilinear,freezedetect=n=${opts.freezeNoise}:d=${minS}[v]`,
        );
        maps.push('-map', '[v]');
      }
      const silence = { starts: [] as number[], ends: [] as number[] };
      const still = { starts: [] as number[], ends: [] as number[] };
      let lastMs = 0;
      if (graph.length) {
        await run(
          ffmpeg,
          [
            '-hide_banner',
            '-loglevel',
            'info',
            ...(hasVideo ? ['-skip_loop_filter', 'all'] : []),
            '-i',
            file,
            '-filter_complex',
            graph.join(';'),
            ...maps,
            '-f',
            'null',
            '-',
          ],
          timeoutMs,
          (line) => {
            let v: number | null;
            if ((v = secondsIn(line, 'silence_start')) !== null) silence.starts.push(v);
            else if ((v = secondsIn(line, 'silence_end')) !== null) silence.ends.push(v);
            else if ((v = secondsIn(line, 'freezedetect.freeze_start')) !== null)
              still.starts.push(v);
            else if ((v = secondsIn(line, 'freezedetect.freeze_end')) !== null) still.ends.push(v);
            // The progress line at the end ("time=00:06:12.04") tells the length when the header does not.
            const t = /time=(\d+):(\d+):(\d+(?:\.\d+)?)/.exec(line);
            if (t) lastMs = Math.round((+t[1] * 3600 + +t[2] * 60 + +t[3]) * 1000);
          },
        );
      }
      durationMs ??= lastMs || null;
      const whole = durationMs !== null ? [{ startMs: 0, endMs: durationMs }] : [];
      return {
        durationMs,
        hasAudio,
        hasVideo,
        silences: hasAudio ? stretches(silence.starts, silence.ends, durationMs) : whole,
        stills: hasVideo ? stretches(still.starts, still.ends, durationMs) : whole,
      };
    },
  };
}

/** True when the error says the program is not installed. */
export const isMissingProgram = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';
