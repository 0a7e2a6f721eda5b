import type { ServiceContext } from '@htm/events';
import type { InternalClient } from '@htm/service-kit';
import type { JobsConfig } from './config.js';
import type { FileStorage } from './storage/file-storage.js';
import type { FileLinkSigner } from './storage/file-links.js';
import type { JobsReadCache } from './read-cache.js';

/** Everything the jobs routes and use cases need (built once in main.ts). */
export interface JobsDeps extends ServiceContext<JobsConfig> {
  storage: FileStorage;
  links: FileLinkSigner;
  payments: Pick<InternalClient, 'post'>;
  /** Available-jobs pages and tester standings, emptied by every change (read-cache.ts). */
  readCache: JobsReadCache;
  /** Temporary upload area (same disk as local storage, so files move by rename). */
  tmpDir: string;
}
