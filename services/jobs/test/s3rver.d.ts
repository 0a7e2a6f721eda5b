/** Minimal types for s3rver (a local S3 API server used only by the S3 storage test; it ships none). */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }
  interface S3rverContext {
    method: string;
    path: string;
    query: Record<string, string | undefined>;
    status: number;
    body: unknown;
    set(name: string, value: string): void;
  }
  export default class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    /** Koa's middleware list (s3rver is a Koa app); composed when run() starts listening. */
    middleware: Array<(ctx: S3rverContext, next: () => Promise<void>) => Promise<void> | void>;
    store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
    close(): Promise<void>;
  }
}
