import type {
  SiteCheckFailureReason,
  SiteCheckImpact,
  SiteCheckSize,
  SiteCheckSizeDetail,
} from '@htm/contracts';

/** Lighthouse's lab figures at one size (providers/lighthouse-worker.ts measures them). */
export interface LighthouseFigures {
  /** 0-1, as Lighthouse gives it. */
  score: number | null;
  lcpMs: number | null;
  cls: number | null;
  tbtMs: number | null;
  /** Its top opportunities, most time saved first. */
  opportunities: Array<{
    id: string;
    title: string;
    savingsMs: number | null;
    savingsBytes: number | null;
  }>;
}

/** What the browser run measured at one size (providers/site-runner.ts fills it). */
export interface MeasuredSize {
  size: SiteCheckSize;
  width: number;
  height: number;
  screenshot: Buffer | null;
  axe: Array<{
    id: string;
    impact: SiteCheckImpact;
    help: string;
    helpUrl: string;
    nodes: Array<{ selector: string; html: string }>;
  }>;
  /** Lighthouse's lab figures, or null when it could not measure (lighthouseError says why). */
  lighthouse: LighthouseFigures | null;
  lighthouseError: string | null;
  consoleErrors: Array<{ text: string; url: string | null }>;
  exceptions: Array<{ message: string }>;
  failedRequests: Array<{
    url: string;
    status: number | null;
    method: string;
    resourceType: string;
    error: string | null;
  }>;
  brokenImages: Array<{ url: string; status: number | null }>;
  layoutShift: number;
  longTasksMs: number;
  pageBytes: number;
  requests: number;
  /** Requests of the page the egress proxy refused, and why. */
  blocked: Array<{ url: string; reason: string }>;
}

/** A whole check that ran: both sizes, the links, and what the egress proxy refused. */
export interface MeasuredCheck {
  url: string;
  finalUrl: string;
  sizes: MeasuredSize[];
  links: { checked: number; broken: Array<{ url: string; status: number | null }> };
  blocked: Array<{ url: string; reason: string }>;
  /** Lighthouse was asked to run (tests of the egress rules skip it). */
  lighthouseRan: boolean;
}

/** A check that could not run: the reason SiteCheckFailed carries, and a line for the operator. */
export interface CheckFailure {
  reason: SiteCheckFailureReason;
  detail: string;
}

export type CheckOutcome =
  { ok: true; check: MeasuredCheck } | { ok: false; failure: CheckFailure };

/** The per-size details of the API's answer (screenshots are stored apart and added when read). */
export type StoredSizeDetail = Omit<SiteCheckSizeDetail, 'screenshot'>;
