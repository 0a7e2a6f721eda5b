import { spawn } from 'node:child_process';

/** Runs a program, resolving with its stdout; rejects with its stderr's tail on failure. ENOENT when missing. */
function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(
          new Error(`${cmd} exited with ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`),
        );
    });
  });
}

export interface MediaTools {
  /** Rewrites the container without re-encoding (`-c copy`): WebM gets cues and a duration, MP4 its index up front. */
  remux(input: string, output: string, container: 'webm' | 'mp4'): Promise<void>;
  /** The duration in ms (ffprobe), or null when the file says none. */
  durationMs(file: string): Promise<number | null>;
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
  };
}

/** True when the error says the program is not installed. */
export const isMissingProgram = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';
