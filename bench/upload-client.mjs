// The testers' browsers of the recording-upload benchmark, in their own process (as autocannon is
// for the read benchmarks): the marketplace's process only serves. Reads
// {uploads: [{base, path, token?, metadata, size}], chunk} as JSON on stdin, runs every upload at
// once as tus 1.0 does (POST with Upload-Length, then PATCHes of `chunk` bytes at Upload-Offset,
// each waiting for the last), and writes {wall, answers: [{status, ms, bytes, patches, error?}]}.
// The bytes are made here, never read from disk: a WebM signature, then a repeating pattern.
import { text } from 'node:stream/consumers';

const { uploads, chunk } = JSON.parse(await text(process.stdin));
const pattern = Buffer.alloc(chunk);
for (let i = 0; i < chunk; i++) pattern[i] = (i * 31 + (i >> 9)) & 0xff;
const first = Buffer.from(pattern);
// EBML header of a WebM file (the server checks the content by its first bytes).
Buffer.from(
  '1a45dfa39f4286810142f7810142f2810442f381084282847765626d42878104428581021853806701ffffffffffffff',
  'hex',
).copy(first);

async function one({ base, path, token, metadata, size }) {
  const t0 = performance.now();
  const auth = token ? { authorization: `Bearer ${token}` } : {};
  const c = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(size),
      ...(metadata ? { 'Upload-Metadata': metadata } : {}),
      ...auth,
    },
  });
  await c.arrayBuffer();
  if (c.status !== 201)
    return {
      status: c.status,
      ms: performance.now() - t0,
      bytes: 0,
      patches: 0,
      error: 'creation',
    };
  const loc = new URL(c.headers.get('location'), base).toString();
  let offset = 0;
  let patches = 0;
  let status = 0;
  while (offset < size) {
    const n = Math.min(chunk, size - offset);
    const body = (offset === 0 ? first : pattern).subarray(0, n);
    const r = await fetch(loc, {
      method: 'PATCH',
      headers: {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
        ...auth,
      },
      body,
    });
    const answer = await r.text();
    status = r.status;
    patches++;
    if (r.status !== 204)
      return {
        status,
        ms: performance.now() - t0,
        bytes: offset,
        patches,
        error: answer.slice(0, 200),
      };
    offset = Number(r.headers.get('upload-offset'));
  }
  return { status, ms: performance.now() - t0, bytes: offset, patches };
}

const t0 = performance.now();
const answers = await Promise.all(
  uploads.map((u) =>
    one(u).catch((err) => ({
      status: 0,
      ms: performance.now() - t0,
      bytes: 0,
      patches: 0,
      error: String(err.cause?.code ?? err.message),
    })),
  ),
);
process.stdout.write(JSON.stringify({ wall: performance.now() - t0, answers }));
