import type { CheckOutcome } from './check-result.js';

/** The browser part of a check, behind an interface (providers/chromium-runner.ts). */
export interface SiteRunner {
  /** False when no browser is installed: every check then ends `unavailable`. */
  readonly available: boolean;
  /** Why it is unavailable (one line for the log and the start-up message). */
  readonly unavailableReason: string | null;
  run(url: string): Promise<CheckOutcome>;
}
