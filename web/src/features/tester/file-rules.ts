import { JOB_LIMITS, JOB_MESSAGES } from '@htm/contracts/jobs';

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** Screenshot of the dashboard Submit Work modal: optional, image only, max 10MB. */
export function checkScreenshot(file: File | null | undefined): string | null {
  if (!file) return null;
  if (!file.type.startsWith('image/')) return JOB_MESSAGES.imageOnly;
  if (file.size > JOB_LIMITS.imageMaxBytes) return JOB_MESSAGES.imageTooLarge;
  return null;
}

/** Files of the poster-flow modal: images (max 10MB) or videos (max 100MB), at most 5. */
export function checkResultFiles(files: File[]): string | null {
  if (files.length > JOB_LIMITS.maxFiles) return JOB_MESSAGES.tooManyFiles;
  for (const f of files) {
    const isImage = f.type.startsWith('image/');
    const isVideo = f.type.startsWith('video/');
    if (!isImage && !isVideo) return JOB_MESSAGES.imageOrVideoOnly;
    if (isImage && f.size > JOB_LIMITS.imageMaxBytes) return JOB_MESSAGES.imageTooLarge;
    if (isVideo && f.size > JOB_LIMITS.videoMaxBytes) return JOB_MESSAGES.videoTooLarge;
  }
  return null;
}
