/**
 * `node --experimental-websocket bench/collect-garbage.mjs <ws://inspector>...`: a full garbage
 * collection in each process through its inspector (Chrome DevTools protocol,
 * HeapProfiler.collectGarbage), one after the other. The soak reads each process's RSS right after:
 * V8 lets its old space fill with garbage until its next full collection, so RSS as sampled rises
 * and falls with when that last ran; after a full collection it is what the process really keeps.
 * Prints each process's heap before and after (MB).
 */
const call = (ws, id, method, params = {}) =>
  new Promise((resolve, reject) => {
    const onMessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.id !== id) return;
      ws.removeEventListener('message', onMessage);
      if (m.error) reject(new Error(`${method}: ${m.error.message}`));
      else resolve(m.result);
    };
    ws.addEventListener('message', onMessage);
    ws.send(JSON.stringify({ id, method, params }));
  });

const heapMb = async (ws, id) => {
  const { usedSize, totalSize } = await call(ws, id, 'Runtime.getHeapUsage');
  return `${(usedSize / 2 ** 20).toFixed(0)}/${(totalSize / 2 ** 20).toFixed(0)}`;
};

for (const url of process.argv.slice(2)) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error(`no inspector at ${url}`)), { once: true });
  });
  const before = await heapMb(ws, 1);
  await call(ws, 2, 'HeapProfiler.collectGarbage');
  const after = await heapMb(ws, 3);
  console.log(`${url}: heap used/total ${before} -> ${after} MB`);
  ws.close();
}
