/**
 * Session checks ("Every session checked"): what measuring one 10-minute 1080p screen recording
 * costs (the media provider's `analyse`: ffprobe, then one ffmpeg run with `silencedetect` over
 * the audio and `freezedetect` over the picture sampled once a second at 320 px, no loop filter),
 * beside the remux (`-c copy`) every finished recording already gets. Targets: the checks' CPU time
 * <= a tenth of the recording's length (60 s) and <= 150 MB resident memory for any one program.
 * CPU time and peak RSS come from a wrapper around each ffmpeg/ffprobe the provider starts (a
 * wrapper passed as FFMPEG_PATH/FFPROBE_PATH), so they do not depend on the machine's load.
 *
 * The recording (bench/media.ts): one minute of VP8 1080p30 at 2 Mbit/s (half moving test pattern,
 * half a still white screen; speech from espeak-ng then silence in Opus) written as MediaRecorder
 * writes it, and repeated ten times by stream copy. Made once and kept in the system's temporary folder.
 * Run: `npx tsx bench/session-check.ts` (needs ffmpeg, espeak-ng and GNU time).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SESSION_CHECK_DEFAULTS as T } from '@htm/contracts/marketplace';
import { ffmpegTools } from '@htm/jobs/testing';
import { cost, recording, timed } from './media.js';
import { figure, isMain, noteMachineLoad, step } from './support.js';

const NAME = 'session-check';
const RECORDING_S = 600;

export async function run(): Promise<void> {
  const file = recording(RECORDING_S / 60, '1920x1080', NAME);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'htm-bench-session-run-'));
  try {
    const remuxLog = path.join(dir, 'remux.log');
    const checkLog = path.join(dir, 'check.log');
    const remuxTools = ffmpegTools(timed(dir, 'ffmpeg', remuxLog), 'ffprobe');
    step(NAME, 'remux (-c copy), as every finished recording gets');
    await remuxTools.remux(file, path.join(dir, 'out.webm'), 'webm');
    rmSync(path.join(dir, 'ffmpeg'));
    const checkTools = ffmpegTools(timed(dir, 'ffmpeg', checkLog), timed(dir, 'ffprobe', checkLog));
    step(NAME, 'session check measures (ffprobe + silencedetect + freezedetect)');
    const nodeBefore = process.cpuUsage();
    const facts = await checkTools.analyse(file, {
      noiseDb: T.silenceNoiseDb,
      minMs: T.silenceMinMs,
      freezeNoise: T.freezeNoise,
      fps: T.freezeFps,
    });
    const nodeCpu = process.cpuUsage(nodeBefore);
    const remux = cost(remuxLog);
    const check = cost(checkLog);
    const checkCpu = check.cpuS + (nodeCpu.user + nodeCpu.system) / 1e6;
    figure(
      NAME,
      'recording: length (s), 1920x1080 VP8 30 fps + Opus',
      (facts.durationMs ?? 0) / 1000,
    );
    figure(NAME, 'remux (-c copy): CPU time (s)', remux.cpuS);
    figure(NAME, 'remux (-c copy): peak RSS (MB)', remux.peakMb);
    figure(NAME, 'session check: CPU time (s), programs + parsing', checkCpu, {
      text: `<= ${RECORDING_S / 10} (a tenth of the recording)`,
      ok: checkCpu <= RECORDING_S / 10,
    });
    figure(NAME, 'session check: CPU time / remux CPU time', checkCpu / remux.cpuS);
    figure(NAME, 'session check: peak RSS of one program (MB)', check.peakMb, {
      text: '<= 150',
      ok: check.peakMb <= 150,
    });
    figure(
      NAME,
      'session check found: silences / still stretches',
      `${facts.silences.length} / ${facts.stills.length}`,
    );
    noteMachineLoad(NAME, `; ${check.runs} programs run for the check`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
