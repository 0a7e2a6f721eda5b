/**
 * Screen recordings for the media benches (session-check, recording-remux, report-pack): WebM as a
 * browser's MediaRecorder writes it (VP8 + Opus, no cues, no duration), each minute 30 s of a
 * moving test pattern and 30 s of a still white screen, with 13 s of espeak-ng speech then silence.
 * One minute is encoded once per size and kept in the system's temporary folder; longer ones are
 * that minute repeated by stream copy (seconds, not an encode). And the programs' cost: ffmpeg or
 * ffprobe behind a wrapper that reads their CPU time and peak memory, which hardly depend on the
 * machine's load.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { step } from './support.js';

/** A recording of `minutes` minutes at `size` (WIDTHxHEIGHT, 30 fps, 2 Mbit/s at 1080p), made once. */
export function recording(minutes: number, size = '1920x1080', bench = 'media'): string {
  const file = path.join(os.tmpdir(), `htm-bench-recording-${size}-${minutes}min.webm`);
  if (existsSync(file)) return file;
  const minute = oneMinute(size, bench);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'htm-bench-recording-'));
  try {
    const list = path.join(dir, 'list.txt');
    writeFileSync(list, `file '${minute}'\n`.repeat(minutes));
    const partial = path.join(dir, 'out.webm');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'concat', '-safe', '0'],
      ...['-i', list, '-c', 'copy', '-live', '1', partial],
    ]);
    execFileSync('mv', [partial, file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return file;
}

function oneMinute(size: string, bench: string): string {
  const file = path.join(os.tmpdir(), `htm-bench-recording-${size}-minute.webm`);
  if (existsSync(file)) return file;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'htm-bench-recording-'));
  try {
    const speech = path.join(dir, 'speech.wav');
    execFileSync('espeak-ng', [
      '-w',
      speech,
      'I open the home page. The menu is at the top. The cake costs from twenty four dollars. I add it to the cart, but the cart still says zero.',
    ]);
    const [w, h] = size.split('x').map(Number);
    const kbps = Math.max(200, Math.round((2000 * w * h) / (1920 * 1080)));
    step(bench, `encoding one minute of ${size} VP8 (slow on a shared machine: minutes at 1080p)`);
    const partial = path.join(dir, 'minute.webm');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=30:duration=30`],
      ...['-f', 'lavfi', '-i', `color=c=white:size=${size}:rate=30:duration=30`],
      ...['-i', speech],
      '-filter_complex',
      '[0:v][1:v]concat=n=2:v=1:a=0[v];[2:a]apad=whole_dur=60,aresample=48000[a]',
      ...['-map', '[v]', '-map', '[a]', '-t', '60'],
      ...['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', `${kbps}k`],
      ...['-c:a', 'libopus', '-b:a', '48k', '-live', '1', partial],
    ]);
    execFileSync('mv', [partial, file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return file;
}

/**
 * A program behind a timing wrapper, as a script in `dir`: each run appends "user system maxrss_kb"
 * to `log`: the CPU time from bash's `times` (milliseconds; GNU time prints hundredths, too coarse
 * for a remux that takes a tenth of a second), the peak memory from GNU time.
 */
export function timed(dir: string, program: string, log: string): string {
  const wrapper = path.join(dir, path.basename(program));
  writeFileSync(
    wrapper,
    [
      '#!/bin/bash',
      'r=$(mktemp)',
      `/usr/bin/time -o "$r" -f '%M' ${program} "$@"`,
      'code=$?',
      // `times` in this shell (in a pipe or $(...) it would be a subshell's, with no children).
      'times > "$r.t"',
      `echo "$(tail -1 "$r.t") $(tail -1 "$r")" >> '${log}'`,
      'rm -f "$r" "$r.t"',
      'exit $code',
      '',
    ].join('\n'),
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** Seconds of bash's `times` ("1m2.345s"). */
const seconds = (t: string) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(t);
  return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
};

/** The runs logged by `timed`: CPU seconds in all, the largest peak RSS of one run (MB). */
export function cost(log: string): { cpuS: number; peakMb: number; runs: number } {
  const rows = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [user, system, rssKb] = l.trim().split(/\s+/);
          return [seconds(user), seconds(system), Number(rssKb)];
        })
    : [];
  return {
    cpuS: rows.reduce((acc, [u, s]) => acc + u + s, 0),
    peakMb: rows.length ? Math.max(...rows.map((r) => r[2] / 1024)) : 0,
    runs: rows.length,
  };
}
