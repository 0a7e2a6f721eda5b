/**
 * Untrusted images through libvips (sharp): decoded on libuv's thread pool (never the request
 * thread), at most MAX_IMAGE_PIXELS per frame, stopped after IMAGE_TIMEOUT_SECONDS. The domain
 * (submit-work.ts) decides what a failure means for the tester; this file only knows images.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import sharp from 'sharp';

// libvips keeps the results of recent operations (up to 50 MB) in case the same image is asked
// for again. Every image here is a new upload, read once: the cache only held memory (the jobs
// processes' RSS climbed through a 30-minute soak with their JS heap flat).
sharp.cache(false);

/** Largest image decoded (width × height): 40 megapixels covers a full-page 4K screenshot. */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** All frames of an animated image together (a GIF of 1,000 frames of 40 megapixels is refused). */
export const MAX_ANIMATION_PIXELS = 200_000_000;
/** Longest libvips may work on one image (re-encoding, preview) before it is refused. */
export const IMAGE_TIMEOUT_SECONDS = 15;

/** The file is not an image libvips can read (or not one of the formats we keep). */
export class ImageDecodeError extends Error {}
/** libvips gave up on the image after IMAGE_TIMEOUT_SECONDS. */
export class ImageTooComplexError extends Error {}

function untrustedImage(path: string, opts: { animated?: boolean } = {}) {
  return sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS, ...opts }).timeout({
    seconds: IMAGE_TIMEOUT_SECONDS,
  });
}

const classify = (err: unknown): Error =>
  /timeout/i.test((err as Error)?.message ?? '')
    ? new ImageTooComplexError((err as Error).message)
    : new ImageDecodeError((err as Error)?.message ?? 'not an image');

/** Pixels per frame and frame count, read from the header only (no pixels decoded). */
export async function imageSize(path: string): Promise<{ pixels: number; frames: number }> {
  try {
    const meta = await sharp(path).metadata();
    if (!meta.width || !meta.height) throw new Error('no size');
    return { pixels: meta.width * (meta.pageHeight ?? meta.height), frames: meta.pages ?? 1 };
  } catch (err) {
    throw new ImageDecodeError((err as Error).message);
  }
}

/**
 * Re-encodes an image in its own format without its metadata (EXIF with GPS, XMP, IPTC,
 * comments); the EXIF orientation is applied to the pixels first, so the picture looks the same.
 * Animated GIF/WebP keep their frames. Decoded and re-encoded in memory: a failure here is the
 * file's (ImageDecodeError, ImageTooComplexError), never the disk's.
 */
export async function withoutMetadata(path: string): Promise<Buffer> {
  try {
    const meta = await sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
    const animated = (meta.pages ?? 1) > 1;
    let pipeline = untrustedImage(path, { animated });
    if (!animated) pipeline = pipeline.rotate();
    if (meta.format === 'jpeg') pipeline = pipeline.jpeg({ quality: 92 });
    else if (meta.format === 'png') pipeline = pipeline.png();
    else if (meta.format === 'webp') pipeline = pipeline.webp({ quality: 92 });
    else if (meta.format === 'gif') pipeline = pipeline.gif();
    else throw new Error(`unexpected image format ${meta.format}`);
    return await pipeline.toBuffer();
  } catch (err) {
    throw classify(err);
  }
}

/** A small WebP (at most `max` px a side), re-encoded, so no metadata such as GPS survives. */
export async function webpPreview(path: string, max: number): Promise<Buffer> {
  try {
    return await untrustedImage(path)
      .rotate()
      .resize({ width: max, height: max, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 70 })
      .toBuffer();
  } catch (err) {
    throw classify(err);
  }
}

/** Replaces a file's content through a temporary sibling and a rename; a write error (disk full) is thrown as is. */
export async function replaceFile(path: string, content: Buffer): Promise<void> {
  const next = `${path}.next`;
  try {
    await writeFile(next, content);
    await rename(next, path);
  } catch (err) {
    await rm(next, { force: true });
    throw err;
  }
}
