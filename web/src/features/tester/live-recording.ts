/**
 * A recording that is uploaded while it is being made (issue #30): MediaRecorder's chunks are
 * appended here as they come, the tus upload reads byte ranges as soon as they exist (its length
 * stays deferred until the recording stops), and every chunk is also kept in IndexedDB so that a
 * page reload can finish the upload from the server's offset instead of losing the recording.
 */

/** What the tus upload reads: bytes as they are recorded; `done` once the recording has ended. */
export interface RecordingSource {
  /** Bytes recorded so far (final once `finished`). */
  readonly size: number;
  readonly finished: boolean;
  /**
   * Bytes start..end (end exclusive), as soon as a useful part of them is recorded: at least
   * PART_MIN_BYTES, or what there is after PART_WAIT_MS, or the rest when the recording ends.
   * `done` is true when this part reaches the end of a finished recording.
   */
  slice(start: number, end: number): Promise<{ value: Blob; done: boolean }>;
  /** Ends any waiting slice (the upload was aborted). */
  close(): void;
}

/** A PATCH carries at least this much while recording (fewer, larger requests; S3 parts grow less often). */
export const PART_MIN_BYTES = 1024 * 1024;
/** ...or whatever was recorded after this long, so the upload never falls far behind. */
export const PART_WAIT_MS = 3000;

export class LiveRecording implements RecordingSource {
  private parts: Blob[] = [];
  private bytes = 0;
  private ended = false;
  private wake: Array<() => void> = [];

  constructor(
    readonly type: string,
    initial: Blob[] = [],
    finished = false,
  ) {
    for (const b of initial) this.push(b);
    this.ended = finished;
  }

  get size(): number {
    return this.bytes;
  }
  get finished(): boolean {
    return this.ended;
  }

  private push(b: Blob) {
    this.parts.push(b);
    this.bytes += b.size;
  }

  private notify() {
    const w = this.wake;
    this.wake = [];
    for (const f of w) f();
  }

  append(chunk: Blob): void {
    if (this.ended || !chunk.size) return;
    this.push(chunk);
    this.notify();
  }

  finish(): void {
    this.ended = true;
    this.notify();
  }

  /** The whole recording so far, as one Blob (for the preview). */
  blob(): Blob {
    return new Blob(this.parts, { type: this.type });
  }

  async slice(start: number, end: number): Promise<{ value: Blob; done: boolean }> {
    const want = Math.min(end - start, PART_MIN_BYTES);
    const generation = this.closings;
    const waitedEnough = { value: false };
    let timer: ReturnType<typeof setTimeout> | undefined;
    while (
      !this.ended &&
      this.bytes - start < want &&
      !(waitedEnough.value && this.bytes > start)
    ) {
      await new Promise<void>((resolve) => {
        this.wake.push(resolve);
        if (!timer && this.bytes > start)
          timer = setTimeout(() => {
            waitedEnough.value = true;
            resolve();
          }, PART_WAIT_MS);
      });
      if (this.closings !== generation) {
        if (timer) clearTimeout(timer);
        throw new Error('upload closed');
      }
    }
    if (timer) clearTimeout(timer);
    const stop = Math.min(end, this.bytes);
    const value = start < stop ? this.blob().slice(start, stop) : new Blob([]);
    return { value, done: this.ended && stop >= this.bytes };
  }

  private closings = 0;
  close(): void {
    this.closings++;
    this.notify();
  }
}

/** What the draft keeps of a recording whose upload has not finished (so a reload can resume it). */
export interface PendingRecording {
  /** The IndexedDB key its chunks are kept under. */
  key: string;
  /** The tus upload URL once the server created it. */
  upload_url: string | null;
  file_type: string;
}

export interface KeptRecording {
  blobs: Blob[];
  size: number;
  duration_ms: number;
  /** Whether the recorder was stopped (false: the reload cut the recording short). */
  stopped: boolean;
}

/** Where a recording's chunks are kept while it is recorded and uploaded. */
export interface ChunkKeeper {
  add(key: string, seq: number, chunk: Blob, durationMs: number): Promise<void>;
  stopped(key: string, durationMs: number): Promise<void>;
  load(key: string): Promise<KeptRecording | null>;
  remove(key: string): Promise<void>;
  /** Removes recordings kept longer than `maxAgeMs` (a draft abandoned with its recording). */
  prune(maxAgeMs: number): Promise<void>;
}

const DB = 'htm-recordings';
const CHUNKS = 'chunks';
const META = 'meta';

function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

let dbP: Promise<IDBDatabase> | null = null;
function openDb(): Promise<IDBDatabase> {
  dbP ??= new Promise((resolve, reject) => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => {
      r.result.createObjectStore(CHUNKS); // key [recording key, seq] -> Blob
      r.result.createObjectStore(META); // key recording key -> {duration_ms, stopped, updated_at}
    };
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => {
      dbP = null;
      reject(r.error);
    };
  });
  return dbP;
}

interface Meta {
  duration_ms: number;
  stopped: boolean;
  updated_at: number;
}

/** IndexedDB (the browser keeps Blobs there on disk): survives a reload and a closed tab. */
export const indexedDbKeeper: ChunkKeeper = {
  async add(key, seq, chunk, durationMs) {
    const db = await openDb();
    const tx = db.transaction([CHUNKS, META], 'readwrite');
    tx.objectStore(CHUNKS).put(chunk, [key, seq]);
    tx.objectStore(META).put(
      { duration_ms: durationMs, stopped: false, updated_at: Date.now() } satisfies Meta,
      key,
    );
    await done(tx);
  },
  async stopped(key, durationMs) {
    const db = await openDb();
    const tx = db.transaction(META, 'readwrite');
    tx.objectStore(META).put(
      { duration_ms: durationMs, stopped: true, updated_at: Date.now() } satisfies Meta,
      key,
    );
    await done(tx);
  },
  async load(key) {
    const db = await openDb();
    const tx = db.transaction([CHUNKS, META], 'readonly');
    const meta = (await req(tx.objectStore(META).get(key))) as Meta | undefined;
    const range = IDBKeyRange.bound([key, 0], [key, Number.MAX_SAFE_INTEGER]);
    const blobs = (await req(tx.objectStore(CHUNKS).getAll(range))) as Blob[];
    if (!meta || !blobs.length) return null;
    return {
      blobs,
      size: blobs.reduce((n, b) => n + b.size, 0),
      duration_ms: meta.duration_ms,
      stopped: meta.stopped,
    };
  },
  async remove(key) {
    const db = await openDb();
    const tx = db.transaction([CHUNKS, META], 'readwrite');
    tx.objectStore(CHUNKS).delete(IDBKeyRange.bound([key, 0], [key, Number.MAX_SAFE_INTEGER]));
    tx.objectStore(META).delete(key);
    await done(tx);
  },
  async prune(maxAgeMs) {
    const db = await openDb();
    const tx = db.transaction(META, 'readonly');
    const store = tx.objectStore(META);
    const [keys, metas] = await Promise.all([req(store.getAllKeys()), req(store.getAll())]);
    const old = keys.filter((_, i) => (metas[i] as Meta).updated_at < Date.now() - maxAgeMs);
    for (const k of old) await indexedDbKeeper.remove(String(k));
  },
};

/** Without IndexedDB (private modes of some browsers, tests): nothing survives a reload. */
export const noKeeper: ChunkKeeper = {
  add: async () => undefined,
  stopped: async () => undefined,
  load: async () => null,
  remove: async () => undefined,
  prune: async () => undefined,
};

export function defaultKeeper(): ChunkKeeper {
  return typeof indexedDB !== 'undefined' ? indexedDbKeeper : noKeeper;
}
