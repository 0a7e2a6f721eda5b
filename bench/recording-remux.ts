/**
 * Recording remux (issue #54 part 3): what making a finished screen recording seekable costs for
 * 1, 10 and 60 minute recordings. The jobs service does it for every recording
 * (domain/recordings.ts makeSeekable: `ffmpeg -c copy` into a new WebM with cues and a duration,
 * then ffprobe for the duration), through its media provider; this bench calls the same provider
 * (`ffmpegTools`) with ffmpeg and ffprobe behind a wrapper reading their CPU time and peak memory, so the CPU seconds and the peak memory
 * are the programs' own and hardly depend on the machine's load. Baseline in the same run: `cp`
 * of the same file (the bytes read and written, nothing parsed).
 *
 * Targets: the cost grows linearly with the length (each minute after the tenth costs at most 25%
 * more than each of the first ten: a fixed start plus the same per minute) and the memory does not
 * (peak RSS of the longest within 1.5x of the shortest). The recordings (bench/media.ts) are made once and kept in the temporary folder.
 *
 *   npx tsx bench/recording-remux.ts [--minutes 1,10,60] [--size 1920x1080] [--rounds 3]
 *   npx tsx bench/recording-remux.ts --minutes 1,2,4 --size 640x360 --rounds 1   # a smoke run
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ffmpegTools } from '@htm/jobs/testing';
import { cost, recording, timed } from './media.js';
import { writeAloneSection } from './results.js';
import { figure, fmt, isMain, loadLine, step } from './support.js';

const NAME = 'recording-remux';

export const INTRO =
  "The jobs service's remux of a finished recording (`ffmpeg -c copy` into WebM with cues and a duration, then ffprobe), through its media provider with each program's CPU time (bash times) and peak memory (GNU time); MediaRecorder-like VP8 + Opus WebM made by bench/media.ts. The median of the rounds. Baseline in the same run: `cp` of the same file.";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(
  opts: { minutes?: number[]; size?: string; rounds?: number } = {},
): Promise<void> {
  const lengths = opts.minutes ?? [1, 10, 60];
  const size = opts.size ?? '1920x1080';
  const rounds = opts.rounds ?? 3;
  step(NAME, `uptime: ${execFileSync('uptime').toString().trim()}`);
  const rows: Array<{
    minutes: number;
    mb: number;
    cpu: number;
    peak: number;
    probe: number;
    copy: number;
  }> = [];
  for (const minutes of lengths) {
    const file = recording(minutes, size, NAME);
    const mb = statSync(file).size / 1024 ** 2;
    const runs = {
      remux: [] as number[],
      peak: [] as number[],
      probe: [] as number[],
      copy: [] as number[],
    };
    for (let r = 0; r < rounds; r++) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'htm-bench-remux-'));
      try {
        const logs = {
          remux: path.join(dir, 'remux.log'),
          probe: path.join(dir, 'probe.log'),
          copy: path.join(dir, 'copy.log'),
        };
        const tools = ffmpegTools(
          timed(dir, 'ffmpeg', logs.remux),
          timed(dir, 'ffprobe', logs.probe),
        );
        const out = path.join(dir, 'out.webm');
        await tools.remux(file, out, 'webm');
        const durationMs = await tools.durationMs(out);
        if (Math.abs((durationMs ?? 0) - minutes * 60_000) > 2000)
          throw new Error(`the remuxed ${minutes}-minute file says ${durationMs} ms`);
        execFileSync(timed(dir, 'cp', logs.copy), [file, path.join(dir, 'copy.webm')]);
        const remux = cost(logs.remux);
        runs.remux.push(remux.cpuS);
        runs.peak.push(remux.peakMb);
        runs.probe.push(cost(logs.probe).cpuS);
        runs.copy.push(cost(logs.copy).cpuS);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const row = {
      minutes,
      mb,
      cpu: median(runs.remux),
      peak: Math.max(...runs.peak),
      probe: median(runs.probe),
      copy: median(runs.copy),
    };
    rows.push(row);
    figure(
      NAME,
      `${minutes} min (${fmt(mb)} MB): remux CPU s / per minute of video / peak RSS MB; ffprobe CPU s; cp CPU s`,
      `${fmt(row.cpu)} / ${fmt(row.cpu / minutes)} / ${fmt(row.peak)}; ${fmt(row.probe)}; ${fmt(row.copy)}`,
    );
  }
  const longest = rows[rows.length - 1];
  const shortest = rows[0];
  const middle = rows.find((r) => r.minutes === 10) ?? rows[Math.floor(rows.length / 2)];
  // Linear: a fixed start (the program itself) plus the same cost for every further minute.
  const slope = (a: (typeof rows)[number], b: (typeof rows)[number]) =>
    (b.cpu - a.cpu) / (b.minutes - a.minutes);
  const early = slope(shortest, middle);
  const late = slope(middle, longest);
  figure(
    NAME,
    `CPU s per further minute of video: ${shortest.minutes} -> ${middle.minutes} min / ${middle.minutes} -> ${longest.minutes} min`,
    `${early.toFixed(4)} / ${late.toFixed(4)}`,
  );
  const linear = late / early;
  figure(
    NAME,
    "the later minutes' cost / the earlier ones' (1: the cost grows linearly)",
    fmt(linear),
    { text: '<= 1.25', ok: linear <= 1.25 },
  );
  const flat = longest.peak / shortest.peak;
  figure(
    NAME,
    `peak RSS, ${longest.minutes} min / ${shortest.minutes} min (1: the memory does not grow)`,
    fmt(flat),
    { text: '<= 1.5', ok: flat <= 1.5 },
  );
  figure(
    NAME,
    `remux CPU / cp CPU of the same ${longest.minutes}-minute file (the baseline)`,
    longest.copy > 0 ? fmt(longest.cpu / longest.copy) : 'cp too fast to time',
  );
  figure(
    NAME,
    'video size / rounds / machine load average at the end',
    `${size} / ${rounds} / ${loadLine()}`,
  );
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string' },
      size: { type: 'string' },
      rounds: { type: 'string' },
    },
  });
  const started = new Date();
  await run({
    minutes: values.minutes?.split(',').map(Number),
    size: values.size,
    rounds: values.rounds ? Number(values.rounds) : undefined,
  });
  writeAloneSection(NAME, started, INTRO);
}
