import { AppError } from '@htm/service-kit/errors';
import { JOB_LIMITS, JOB_MESSAGES } from '@htm/contracts';

/** One uploaded file, already typed by its bytes and counted (http/multipart.ts streams it to a temporary file). */
export interface UploadedFile {
  field: string;
  tmpPath: string;
  size: number;
  contentType: string;
  ext: string;
  kind: 'image' | 'video';
  /** The name the tester's browser gave the file, sanitised (see displayFileName), or null. */
  name: string | null;
}

/** A submission form as the route parsed it: its text fields and its files (temporary; the route deletes them after). */
export interface SubmissionForm {
  fields: Record<string, string>;
  files: UploadedFile[];
}

export type SubmitVariant = 'dashboard' | 'poster_flow';

/** What each submission variant accepts: the dashboard one screenshot; the poster flow up to 5 images or videos. */
export function uploadRules(variant: SubmitVariant): {
  fileFields: string[];
  allowVideo: boolean;
  maxFiles: number;
  tooManyFilesMessage?: string;
} {
  return variant === 'dashboard'
    ? {
        fileFields: ['screenshot'],
        allowVideo: false,
        maxFiles: 1,
        tooManyFilesMessage: 'Please attach one screenshot only',
      }
    : {
        fileFields: ['files', 'files[]', 'file', 'screenshot'],
        allowVideo: true,
        maxFiles: JOB_LIMITS.maxFiles,
        tooManyFilesMessage: undefined,
      };
}

/** The 415 of an upload route: its message names what that route accepts. */
export const unsupportedFile = (allowVideo: boolean) =>
  new AppError(
    'unsupported_type',
    allowVideo ? JOB_MESSAGES.imageOrVideoOnly : JOB_MESSAGES.imageOnly,
    { code: 'unsupported_file_type' },
  );

/** What the tester reads when we could not store an upload (our disk or storage is full). */
export const STORAGE_FULL_MESSAGE =
  'We could not store your file right now; your draft is kept, try again in a few minutes';

/** The 507 of an upload we could not store: our failure, not a wrong file. */
export const storageFull = () =>
  new AppError('insufficient_storage', STORAGE_FULL_MESSAGE, { code: 'storage_full' });

/** True for a write that failed because the disk (or quota) is full, wherever it is in the cause chain. */
export function isStorageFull(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const x = e as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown };
    if (x.kind === 'insufficient_storage') return true;
    if (x.code === 'ENOSPC' || x.code === 'EDQUOT') return true;
    if (
      typeof x.message === 'string' &&
      /no space left on device|disk quota exceeded/i.test(x.message)
    )
      return true;
    e = x.cause;
  }
  return false;
}
