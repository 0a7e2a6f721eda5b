import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { stringify } from 'csv-stringify';
import { neutraliseCell } from '../domain/csv-cell.js';

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | null;
}

/**
 * Streams rows as an attachment `<base>-YYYY-MM-DD.csv`: UTF-8 with a BOM (so Excel reads
 * accents), CRLF records, RFC 4180 quoting by csv-stringify, every cell neutralised against
 * formula injection. Rows are pulled from `rows` as the client reads, never all in memory.
 * The first read happens before any header is sent, so a failing database still gets the
 * JSON error answer.
 */
export async function sendCsv<T>(
  res: Response,
  base: string,
  columns: CsvColumn<T>[],
  rows: AsyncIterable<T>,
  now = new Date(),
): Promise<void> {
  const it = rows[Symbol.asyncIterator]();
  const first = await it.next();
  const cells = async function* () {
    for (let r = first; !r.done; r = await it.next())
      yield columns.map((c) => c.value(r.value) ?? '');
  };
  const stringifier = stringify({
    bom: true,
    header: true,
    columns: columns.map((c) => c.header),
    record_delimiter: 'windows',
    cast: { string: (v: string) => neutraliseCell(v) },
  });
  res.status(200);
  res.setHeader('content-type', 'text/csv; charset=utf-8');
  res.setHeader(
    'content-disposition',
    `attachment; filename=${base}-${now.toISOString().slice(0, 10)}.csv`,
  );
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  try {
    await pipeline(Readable.from(cells()), stringifier, res);
  } catch (err) {
    // A client that hangs up mid-download is not a server error.
    if ((err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    throw err;
  }
}
