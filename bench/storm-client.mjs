// The testers of a storm, in their own process (as autocannon is for the read benchmarks): the
// marketplace's process serves, this one only sends. Reads {base, shots: [{method, path, token}]}
// as JSON on stdin, fires every shot at once, and writes {wall, answers: [{status, ms, code}]}.
import { text } from 'node:stream/consumers';

const { base, shots } = JSON.parse(await text(process.stdin));
const t0 = performance.now();
const answers = await Promise.all(
  shots.map(async ({ method, path, token }) => {
    const s = performance.now();
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
        },
        body: method === 'GET' ? undefined : '{}',
      });
      const body = await res.text();
      let code;
      try {
        code = JSON.parse(body)?.code;
      } catch {
        code = undefined;
      }
      return { status: res.status, ms: performance.now() - s, code };
    } catch (err) {
      return { status: 0, ms: performance.now() - s, code: err.cause?.code ?? err.message };
    }
  }),
);
process.stdout.write(JSON.stringify({ wall: performance.now() - t0, answers }));
