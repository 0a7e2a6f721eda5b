import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type S3rver from 's3rver';

/**
 * s3rver 3.7 (the local S3 API the S3 tests use) implements multipart uploads but not
 * ListParts (`GET /bucket/key?uploadId=`) or AbortMultipartUpload (`DELETE ...?uploadId=`), and
 * the tus S3 store calls both (every PATCH asks which parts are stored; removing an unfinished
 * upload aborts it). This adds the two over s3rver's own part files (`<uploads>/<uploadId>/<n>`
 * and `<n>.md5`), answering as S3 does. Call before `run()`. Signatures are not checked here.
 */
export function addMultipartListing(s3: S3rver): void {
  s3.middleware.unshift(async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    const m = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (!uploadId || !m || !/^[0-9a-f]+$/.test(uploadId) || !['GET', 'DELETE'].includes(ctx.method))
      return next();
    const [, bucket, key] = m;
    const dir = path.join(s3.store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    const exists = await stat(dir).then(
      () => true,
      () => false,
    );
    if (!exists) {
      ctx.status = 404;
      ctx.set('Content-Type', 'application/xml');
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${uploadId}</UploadId></Error>`;
      return;
    }
    if (ctx.method === 'DELETE') {
      await rm(dir, { recursive: true, force: true });
      ctx.status = 204;
      ctx.body = '';
      return;
    }
    const numbers = (await readdir(dir))
      .filter((f) => /^\d+$/.test(f))
      .map(Number)
      .sort((a, b) => a - b);
    const parts = await Promise.all(
      numbers.map(async (n) => {
        const s = await stat(path.join(dir, String(n)));
        const md5 = (await readFile(path.join(dir, `${n}.md5`), 'utf8').catch(() => '')).trim();
        return `<Part><PartNumber>${n}</PartNumber><LastModified>${s.mtime.toISOString()}</LastModified><ETag>"${md5}"</ETag><Size>${s.size}</Size></Part>`;
      }),
    );
    ctx.status = 200;
    ctx.set('Content-Type', 'application/xml');
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?><ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${uploadId}</UploadId><PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>${numbers.at(-1) ?? 0}</NextPartNumberMarker><MaxParts>1000</MaxParts><IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`;
  });
}
