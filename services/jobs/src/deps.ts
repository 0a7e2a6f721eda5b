import type { ServiceContext } from '@htm/events';
import type { ServiceKeyring } from '@htm/service-kit';
import type { JobsConfig } from './config.js';
import type { FileStorage } from './providers/file-storage.js';
import type { FileLinkSigner } from './providers/file-links.js';
import type { JobsReadCache } from './db/read-cache.js';
import type { PaymentsClient } from './clients/payments.client.js';
import type { ClaimGate } from './db/claim-gate.js';
import type { RecordingStore } from './providers/recording-store.js';
import type { MediaTools } from './providers/media-tools.js';
import type { Lexicon } from './domain/finding-clusters.js';

/** Everything the jobs routes and use cases need (built once in main.ts). */
export interface JobsDeps extends ServiceContext<JobsConfig> {
  storage: FileStorage;
  links: FileLinkSigner;
  /** payments' internal checkout route, answers checked against the contracts schema. */
  payments: PaymentsClient;
  /** Signs jobs' calls to payments; verifies admin's calls to /internal/jobs/clear. */
  serviceKeys: ServiceKeyring;
  /** Available-jobs pages and tester standings, emptied by the changes that alter them (read-cache.ts). */
  readCache: JobsReadCache;
  /** Claims of one job take turns in this process; those that overlapped a winner lose at once. */
  claimGate: ClaimGate;
  /** Temporary upload area (same disk as local storage, so files move by rename). */
  tmpDir: string;
  /** Screen recordings: the tus store (local FileStore or S3Store) and what is done with finished ones. */
  recordingStore: Promise<RecordingStore>;
  /** ffmpeg/ffprobe: remux recordings to seekable files and measure them. */
  media: MediaTools;
  /** Remuxes under way in this process (stop waits for them; tests wait on them). */
  recordingWork: Set<Promise<void>>;
  /** Reads findings for grouping (wink-nlp + WordNet); loads its model on first use only. */
  lexicon: Lexicon;
  /** This process's summary worker, once started (a change the owner waits on computes at once). */
  summaries?: { computeDue(): Promise<number> };
}
