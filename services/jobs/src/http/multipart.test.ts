import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Request } from 'express';
import { parseMultipart } from './multipart.js';

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const png = (bytes: number, fill: number) =>
  Buffer.concat([PNG_SIGNATURE, Buffer.alloc(bytes - PNG_SIGNATURE.length, fill)]);

describe('parseMultipart', () => {
  let server: Server;
  let url: string;
  let tmpDir: string;

  beforeAll(async () => {
    tmpDir = await mkdtemp(path.join(tmpdir(), 'multipart-test-'));
    server = createServer(async (req, res) => {
      try {
        const form = await parseMultipart(req as Request, {
          tmpDir,
          fileFields: ['files'],
          allowVideo: false,
          maxFiles: 5,
        });
        const files = await Promise.all(
          form.files.map(async (f) => ({
            name: f.name,
            size: f.size,
            fill: (await readFile(f.tmpPath))[200],
          })),
        );
        await form.cleanup();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ files }));
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(tmpDir, { recursive: true, force: true });
  });

  it('keeps the files in the order they were sent, even when a small one finishes writing before a large one', async () => {
    // The large first file is still being written when the small ones after it are done.
    const sent = [
      { name: 'first.png', data: png(3_000_000, 1) },
      { name: 'second.png', data: png(300, 2) },
      { name: 'third.png', data: png(5_000, 3) },
      { name: 'fourth.png', data: png(300, 4) },
    ];
    for (let round = 0; round < 5; round++) {
      const form = new FormData();
      for (const f of sent) form.append('files', new Blob([f.data], { type: 'image/png' }), f.name);
      const r = await fetch(url, { method: 'POST', body: form });
      expect(r.status).toBe(200);
      const { files } = (await r.json()) as {
        files: Array<{ name: string; size: number; fill: number }>;
      };
      expect(files).toEqual(
        sent.map((f, i) => ({ name: f.name, size: f.data.length, fill: i + 1 })),
      );
    }
  });
});
