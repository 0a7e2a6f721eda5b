import { API_BASE } from './config';
import {
  authHeaders,
  buildUrl,
  newIdempotencyKey,
  recoverFrom401,
  requestWithReauth,
  type QueryResult,
} from './base-query';
import { getToken } from './tokens';

export interface UploadResult {
  status: number;
  data: unknown;
}

/**
 * Multipart POST through XMLHttpRequest so upload progress can be shown.
 * Same headers as every other call; a 401 refreshes once and retries.
 */
export function uploadForm(
  url: string,
  form: FormData,
  onProgress?: (percent: number) => void,
  /** One per user attempt (default: a new one per call); the retry after a 401 reuses it. */
  idempotencyKey: string = newIdempotencyKey(),
): Promise<UploadResult> {
  const send = (token: string | null) =>
    new Promise<UploadResult>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', buildUrl(url));
      xhr.withCredentials = true;
      xhr.timeout = 120_000;
      for (const [k, v] of Object.entries(authHeaders(token))) xhr.setRequestHeader(k, v);
      xhr.setRequestHeader('Idempotency-Key', idempotencyKey);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable && onProgress) onProgress(Math.round((e.loaded / e.total) * 100));
      };
      xhr.onload = () => {
        let data: unknown = xhr.responseText;
        try {
          data = xhr.responseText ? JSON.parse(xhr.responseText) : null;
        } catch {
          /* not JSON */
        }
        if (xhr.status >= 200 && xhr.status < 300) onProgress?.(100);
        resolve({ status: xhr.status, data });
      };
      xhr.onerror = () => resolve({ status: 0, data: null });
      xhr.ontimeout = () => resolve({ status: 0, data: { detail: 'Upload timed out' } });
      xhr.send(form);
    });
  return (async () => {
    const sent = getToken();
    const first = await send(sent);
    if (first.status !== 401) return first;
    const code = (first.data as { code?: string } | null)?.code;
    const fresh = await recoverFrom401(sent, code);
    return fresh ? send(fresh) : first;
  })();
}

/** Downloads a file (a CSV export or an uploaded file with ?download=1) with the bearer token. */
export async function downloadBlob(
  url: string,
  filename: string | ((blob: Blob) => string),
): Promise<QueryResult<Blob>> {
  const path = url.startsWith(API_BASE) ? url.slice(API_BASE.length) : url;
  const res = (await requestWithReauth({
    url: path,
    responseType: 'blob',
    timeoutMs: 60_000,
  })) as QueryResult<Blob>;
  if (res.data) saveBlob(res.data, typeof filename === 'function' ? filename(res.data) : filename);
  return res;
}

export function saveBlob(blob: Blob, filename: string): void {
  if (typeof URL.createObjectURL !== 'function') return;
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}

export function withDownloadFlag(url: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}download=1`;
}
