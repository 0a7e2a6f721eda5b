import type { Express } from 'express';
import type { Logger } from 'pino';
import {
  flushTracing,
  startTracingFromEnv,
  createAuth,
  createHttpApp,
  createLogger,
  listen,
  Metrics,
  openDatabase,
  RevokedSessions,
  type Auth,
  type BaseConfig,
  type Db,
  type DbHandle,
  type HttpAppOptions,
  type ReadinessCheck,
  type RunningServer,
} from '@htm/service-kit';
import type { JWTVerifyGetKey } from 'jose';
import type { ServiceName } from './catalogue.js';
import type { EventBus } from './bus.js';
import type { HandledEventsTable, OutboxTable } from './outbox.js';
import type { EventEnvelope } from './envelope.js';
import { createEventBus, ServiceEvents, type EventHandlers } from './runtime.js';

/** What every service gets from its host. */
export interface ServiceContext<C extends BaseConfig = BaseConfig> {
  name: ServiceName;
  config: C;
  logger: Logger;
  db: Db;
  dbHandle: DbHandle;
  bus: EventBus;
  events: ServiceEvents;
  auth: Auth;
  metrics: Metrics;
}

export interface ServiceParts {
  /** Build the express app with createHttp (it adds health, errors, 404). */
  app: (
    createHttp: (mount: (app: Express) => void, extra?: Partial<HttpAppOptions>) => Express,
  ) => Express;
  handlers?: EventHandlers;
  readiness?: Record<string, ReadinessCheck>;
  /**
   * The service's own effects of the events its outbox relay published (OutboxRelayOptions.relayed):
   * how a service follows its own changes without consuming its own stream.
   */
  relayed?: (events: EventEnvelope[]) => void;
  /** Runs after HTTP is listening (start workers, etc.). */
  start?: () => Promise<void>;
  /** Runs at shutdown after HTTP stops, before consumers and relay stop. */
  stop?: () => Promise<void>;
}

export interface HostOptions<C extends BaseConfig> {
  name: ServiceName;
  config: C & { PORT?: number };
  migrationsFolder: string;
  tables: { outbox: OutboxTable; handled: HandledEventsTable };
  port?: number;
  host?: string;
  /** Share a PGlite instance (API + worker in one process). */
  pglite?: unknown;
  /** Identity verifies its own tokens with its own keys. */
  getKey?: JWTVerifyGetKey;
  logger?: Logger;
  /** Relay poll interval (ms). */
  outboxPollMs?: number;
  setup(ctx: ServiceContext<C>): Promise<ServiceParts> | ServiceParts;
}

export interface HostedService<C extends BaseConfig = BaseConfig> {
  url: string;
  port: number;
  ctx: ServiceContext<C>;
  server: RunningServer;
  /** The express app (tests walk its routes against the operation catalogue). */
  app: Express;
  /** Shutdown in order: HTTP, service workers, consumers and relay (flushed), bus, database. */
  stop(): Promise<void>;
}

/** Boots one service: database + migrations, event bus, outbox relay, consumers, auth, HTTP. */
export async function hostService<C extends BaseConfig>(
  opts: HostOptions<C>,
): Promise<HostedService<C>> {
  const { config, name } = opts;
  const logger = opts.logger ?? createLogger(name, config.LOG_LEVEL);
  // OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (first service of a process decides).
  await startTracingFromEnv(name);
  const dbHandle = await openDatabase({
    // A Postgres schema name has no '-' (site-check keeps its tables in site_check).
    schema: name.replace(/-/g, '_'),
    migrationsFolder: opts.migrationsFolder,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    pglite: opts.pglite,
    logger,
  });
  const bus = createEventBus(config, logger, { clientId: name });
  const metrics = new Metrics(name);
  // Access tokens of sessions identity revoked (logout, refresh-token reuse) are refused at once.
  const revokedSessions = new RevokedSessions({
    redisUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    logger,
  });
  await revokedSessions.start();
  const auth = createAuth({
    jwksUrl: config.IDENTITY_JWKS_URL ?? `${config.IDENTITY_URL}/internal/jwks`,
    getKey: opts.getKey,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    revoked: revokedSessions,
  });
  // Handlers are known only after setup, and ServiceEvents is created with them: setup gets a
  // context whose `events` resolves once it exists (routes only use it while serving).
  const late: { events?: ServiceEvents } = {};
  const ctx = {
    name,
    config,
    logger,
    db: dbHandle.db,
    dbHandle,
    bus,
    get events() {
      if (!late.events) throw new Error('events are not ready until setup has returned');
      return late.events;
    },
    auth,
    metrics,
  } as ServiceContext<C>;
  const parts = await opts.setup(ctx);
  // Forged or misrouted events never reach a handler: alert on any increase.
  const rejected = metrics.counter(
    'events_rejected_total',
    'Events refused before their handler ran, by reason (invalid, source_not_owner, wrong_stream)',
    ['reason'],
  );
  const events = new ServiceEvents({
    onRejected: (reason, error) => {
      rejected.labels({ reason }).inc();
      logger.warn({ reason, error }, 'event rejected');
    },
    service: name,
    db: dbHandle.db,
    outbox: opts.tables.outbox,
    handled: opts.tables.handled,
    bus,
    logger,
    handlers: parts.handlers,
    relayed: parts.relayed,
    pollMs: opts.outboxPollMs,
    metrics,
  });
  late.events = events;
  metrics.gauge('outbox_backlog', 'Outbox rows not yet published', () => events.relay.backlog());
  // The consumer group's lag, both transports (KEDA reads the same number from Redis or Kafka itself).
  if (bus.lag && events.consumedSources.length) {
    const lagOf = bus.lag.bind(bus);
    metrics.gauge(
      'event_consumer_lag',
      "Events not yet handled by this service's consumer group",
      () => lagOf(name, events.consumedSources),
    );
  }
  if (bus.kind === 'redis' && events.consumedSources.length) {
    const rbus = bus as unknown as { deadLetterCount(group: string): Promise<number> };
    // Alert on any value above 0: a dead letter is an event whose effect did not happen.
    metrics.gauge(
      'event_dead_letters',
      'Events of this service in dead letter (alert when above 0)',
      () => rbus.deadLetterCount(name),
    );
  }

  const createHttp = (mount: (app: Express) => void, extra: Partial<HttpAppOptions> = {}) =>
    createHttpApp(
      {
        service: name,
        logger,
        metrics,
        trustProxy: config.TRUST_PROXY,
        readiness: { database: () => dbHandle.ping(), ...parts.readiness },
        ...extra,
      },
      mount,
    );
  const app = parts.app(createHttp);
  await events.start();
  const server = await listen(
    app,
    opts.port ?? config.PORT ?? 0,
    opts.host ?? config.HOST ?? '127.0.0.1',
  );
  await parts.start?.();
  logger.info({ url: server.url }, `${name} service listening`);

  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    port: server.port,
    ctx,
    server,
    app,
    stop: () =>
      (stopping ??= (async () => {
        await server.close();
        await parts.stop?.();
        await events.stop();
        await bus.close();
        await dbHandle.close();
        revokedSessions.stop();
        await flushTracing();
      })()),
  };
}
