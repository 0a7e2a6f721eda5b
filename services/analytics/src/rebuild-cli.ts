/** `npm run analytics:rebuild`: drops the analytics projection and replays every stream from its start. */
import { rebuildAnalytics } from './rebuild.js';

try {
  const r = await rebuildAnalytics();
  process.stdout.write(
    `analytics rebuilt: ${r.events} events read, ${r.applied} applied, ${r.skipped} unreadable entries skipped\n`,
  );
  process.exit(0);
} catch (err) {
  process.stderr.write(`analytics rebuild failed: ${(err as Error).message}\n`);
  process.exit(1);
}
