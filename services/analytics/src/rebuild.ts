import type { Logger } from 'pino';
import {
  catalogue,
  createEventBus,
  handleOnce,
  type EventEnvelope,
  type EventSource,
  type EventType,
} from '@htm/events';
import { createLogger, openDatabase } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import { loadAnalyticsConfig } from './config.js';
import { dropProjection } from './db/facts.repository.js';
import { handledEvents } from './db/schema.js';
import { analyticsEventHandlers } from './events/handlers.js';
import { migrationsFolder } from './main.js';

export interface RebuildResult {
  events: number;
  applied: number;
  skipped: number;
}

/**
 * `npm run analytics:rebuild`: empties the projection (and the handled event ids), then reads
 * every stream analytics consumes from its beginning up to its end as of now and applies each
 * event once, with the same handlers as the service. The service may keep running: an event it
 * handles meanwhile is recorded once (the handled ids are shared), and events after the end
 * are its consumer group's. This is how a new metric is back-filled.
 */
export async function rebuildAnalytics(
  env: Record<string, string | undefined> = process.env,
  opts: { logger?: Logger } = {},
): Promise<RebuildResult> {
  const config = loadAnalyticsConfig(env);
  const logger = opts.logger ?? createLogger('analytics-rebuild', config.LOG_LEVEL);
  const db = await openDatabase({
    schema: 'analytics',
    migrationsFolder,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    logger,
  });
  const bus = createEventBus(config, logger, { clientId: 'analytics-rebuild' });
  try {
    if (!bus.readAll)
      throw new Error(`the ${bus.kind} event bus cannot read its streams from the beginning`);
    const handlers = analyticsEventHandlers();
    const sources = [
      ...new Set((Object.keys(handlers) as EventType[]).map((t) => catalogue[t].source)),
    ] as EventSource[];
    await dropProjection(db.db);
    logger.info(
      { sources, bus: bus.kind },
      'analytics projection dropped; replaying the streams from the start',
    );
    let events = 0;
    let applied = 0;
    const started = Date.now();
    const r = await bus.readAll(sources, async (event: EventEnvelope) => {
      events++;
      const h = handlers[event.type] as ((e: EventEnvelope, tx: Tx) => Promise<void>) | undefined;
      if (h && (await handleOnce(db.db, handledEvents, event, (tx) => h(event, tx)))) applied++;
      if (events % 5000 === 0)
        logger.info({ events, applied, elapsedMs: Date.now() - started }, 'replaying');
    });
    logger.info(
      { events, applied, skipped: r.skipped, elapsedMs: Date.now() - started },
      'analytics rebuilt',
    );
    return { events, applied, skipped: r.skipped };
  } finally {
    await bus.close();
    await db.close();
  }
}
