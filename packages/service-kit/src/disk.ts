import { mkdir, statfs } from 'node:fs/promises';
import type { ReadinessCheck } from './http.js';

/** Bytes free for this process under `dir` (its file system; created if missing). */
export async function freeDiskBytes(dir: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  const s = await statfs(dir);
  return Number(s.bavail) * Number(s.bsize);
}

const mb = (n: number) => `${Math.floor(n / 1_000_000)} MB`;

/**
 * Readiness check `disk`: fails when the file system under `dir` has less than `minFreeBytes`
 * free (0 turns it off). Its message says how much is free, where, and the threshold; the
 * gateway's public /api/healthz names it as "low disk space".
 */
export function diskSpaceCheck(
  dir: string,
  minFreeBytes: number,
  free: (dir: string) => Promise<number> = freeDiskBytes,
): ReadinessCheck {
  return async () => {
    if (minFreeBytes <= 0) return;
    const bytes = await free(dir);
    if (bytes < minFreeBytes)
      throw new Error(
        `low disk space: ${mb(bytes)} free under ${dir}, below MIN_FREE_DISK_BYTES (${mb(minFreeBytes)})`,
      );
  };
}
