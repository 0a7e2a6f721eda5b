/**
 * Generates the KEDA components of deploy/k8s: ScaledObjects that scale the event consumers on
 * their consumer group's lag and the jobs worker on its due timers, beside CPU and memory.
 *
 *   deploy/k8s/components/keda-kafka          EVENT_BUS=kafka (what the base config runs): Kafka scaler
 *   deploy/k8s/components/keda-redis-streams  EVENT_BUS=redis: Redis Streams scaler, one trigger per stream partition
 *
 *   npm run k8s:keda            # rewrites both components
 *   npm run k8s:keda -- --check # exits 1 when they are stale (deploy/test/keda.test.ts checks the same)
 *
 * Which service consumes which sources is CONSUMED_SOURCES below (the types each service handles,
 * docs/events.md); the worker scales on BullMQ's list of due timers, site-check also on the
 * checks waiting in its table (a PostgreSQL trigger). jobs and payments already had
 * CPU HPAs: a target may have only one autoscaler, so the components delete those HPAs and their
 * ScaledObjects carry the same CPU and memory targets plus the lag triggers.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const COMPONENTS = path.join(root, 'deploy', 'k8s', 'components');

type Source = 'identity' | 'jobs' | 'payments' | 'admin' | 'site-check';
/** The event sources each consumer group reads (its handlers' types; docs/events.md). */
export const CONSUMED_SOURCES: Record<string, Source[]> = {
  identity: ['jobs', 'admin'],
  jobs: ['identity', 'payments', 'site-check'],
  payments: ['jobs'],
  admin: ['identity', 'jobs', 'payments'],
  notifications: ['identity', 'jobs'],
  analytics: ['identity', 'jobs', 'payments', 'admin'],
  'site-check': ['identity', 'jobs', 'payments'],
};
/** Services that also serve HTTP and had a CPU HPA (2..10): their ScaledObject keeps those bounds and targets. */
const HTTP_SCALED = new Set(['jobs', 'payments']);
/** REDIS_PREFIX of deploy/k8s/base/config.yaml; Kafka topic names replace ':' with '.'. */
const PREFIX = 'htm:';
const KAFKA_PREFIX = PREFIX.replace(/[^A-Za-z0-9._-]/g, '.');
/** Redis Streams partitions per source (RedisStreamsBus default); one consumer per partition does work at a time. */
export const REDIS_PARTITIONS = 4;
/** Kafka partitions per topic (docker-compose's kafka-init, KAFKA_PARTITIONS); more consumers than partitions sit idle. */
export const KAFKA_PARTITIONS = 6;
/** Lag per replica KEDA aims for (events not yet handled by the group). */
export const LAG_TARGET = 50;
/** Due timers waiting for a worker, per replica. */
export const TIMERS_TARGET = 20;

type Obj = Record<string, unknown>;

/** TriggerAuthentication of the Redis scalers: the read-only `keda` user of scripts/redis-acl.ts. */
export const REDIS_AUTH = 'htm-keda-redis';
/** TriggerAuthentication of the Kafka scaler: KEDA's own SASL principal (User:keda), allowed Describe only. */
export const KAFKA_AUTH = 'htm-keda-kafka';
/** TriggerAuthentication of the PostgreSQL scaler (site-check's queued checks): a read-only role on site_check.checks. */
export const POSTGRES_AUTH = 'htm-keda-postgres';
/** Checks pending or running per site-check replica KEDA aims for (SITE_CHECK_CONCURRENCY of its Deployment). */
export const SITE_CHECKS_TARGET = 1;
/** Secret keys of each TriggerAuthentication (deploy/k8s/base/secret.template.yaml lists them). */
export const AUTH_SECRET_KEYS: Record<string, Record<string, string>> = {
  [REDIS_AUTH]: {
    address: 'KEDA_REDIS_ADDRESS',
    username: 'KEDA_REDIS_USERNAME',
    password: 'KEDA_REDIS_PASSWORD',
  },
  // sasl: scram_sha512 (or scram_sha256, plaintext); tls: enable (SASL_SSL) or disable.
  [KAFKA_AUTH]: {
    sasl: 'KEDA_KAFKA_SASL',
    username: 'KEDA_KAFKA_USERNAME',
    password: 'KEDA_KAFKA_PASSWORD',
    tls: 'KEDA_KAFKA_TLS',
  },
  // A connection string of a read-only role allowed SELECT on site_check.checks only.
  [POSTGRES_AUTH]: {
    connection: 'KEDA_SITE_CHECK_POSTGRES_URL',
  },
};

function triggerAuthentication(name: string): Obj {
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'TriggerAuthentication',
    metadata: { name },
    spec: {
      secretTargetRef: Object.entries(AUTH_SECRET_KEYS[name]).map(([parameter, key]) => ({
        parameter,
        name: 'htm-secrets',
        key,
      })),
    },
  };
}

function cpuMemory(): Obj[] {
  return [
    { type: 'cpu', metricType: 'Utilization', metadata: { value: '70' } },
    { type: 'memory', metricType: 'Utilization', metadata: { value: '80' } },
  ];
}

function lagTriggers(bus: 'kafka' | 'redis', group: string): Obj[] {
  return CONSUMED_SOURCES[group].flatMap((source): Obj[] =>
    bus === 'kafka'
      ? [
          {
            type: 'kafka',
            name: `lag-${source}`,
            metadata: {
              bootstrapServersFromEnv: 'KAFKA_BROKERS',
              consumerGroup: group,
              topic: `${KAFKA_PREFIX}events.${source}`,
              lagThreshold: String(LAG_TARGET),
              activationLagThreshold: '0',
              offsetResetPolicy: 'earliest',
              allowIdleConsumers: 'false',
            },
            authenticationRef: { name: KAFKA_AUTH },
          },
        ]
      : Array.from({ length: REDIS_PARTITIONS }, (_, p) => ({
          type: 'redis-streams',
          name: `lag-${source}-${p}`,
          metadata: {
            stream: `${PREFIX}events:${source}:${p}`,
            consumerGroup: group,
            lagCount: String(LAG_TARGET),
            activationLagCount: '0',
          },
          authenticationRef: { name: REDIS_AUTH },
        })),
  );
}

/**
 * site-check's work waits in Postgres (a row per check), not in the stream: its consumer handles
 * JobPaid in milliseconds, so the lag alone never shows a queue of checks. This trigger does.
 */
function queuedChecks(): Obj {
  return {
    type: 'postgresql',
    name: 'queued-checks',
    metadata: {
      query: "SELECT count(*) FROM site_check.checks WHERE state IN ('pending', 'running')",
      targetQueryValue: String(SITE_CHECKS_TARGET),
      activationTargetQueryValue: '0',
    },
    authenticationRef: { name: POSTGRES_AUTH },
  };
}

function scaledObject(name: string, triggers: Obj[], bounds: { min: number; max: number }): Obj {
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name, labels: { 'app.kubernetes.io/name': name } },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicaCount: bounds.min,
      maxReplicaCount: bounds.max,
      pollingInterval: 15,
      cooldownPeriod: 300,
      advanced: {
        horizontalPodAutoscalerConfig: {
          behavior: {
            scaleDown: {
              stabilizationWindowSeconds: 300,
              policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }],
            },
          },
        },
      },
      triggers,
    },
  };
}

export function renderComponent(bus: 'kafka' | 'redis'): {
  kustomization: string;
  objects: string;
} {
  const partitions = bus === 'kafka' ? KAFKA_PARTITIONS : REDIS_PARTITIONS;
  const objects: Obj[] = [];
  // The worker's timers are BullMQ jobs in Redis whatever the bus: authentication for the Redis scalers.
  objects.push(triggerAuthentication(REDIS_AUTH));
  // The Kafka scaler logs in with SASL as its own principal (docs/operations.md, "Event bus credentials").
  if (bus === 'kafka') objects.push(triggerAuthentication(KAFKA_AUTH));
  for (const group of Object.keys(CONSUMED_SOURCES)) {
    const http = HTTP_SCALED.has(group);
    objects.push(
      scaledObject(
        group,
        [
          ...lagTriggers(bus, group),
          ...(group === 'site-check' ? [queuedChecks()] : []),
          ...cpuMemory(),
        ],
        http ? { min: 2, max: 10 } : { min: 2, max: partitions },
      ),
    );
  }
  objects.push(triggerAuthentication(POSTGRES_AUTH));
  objects.push(
    scaledObject(
      'jobs-worker',
      [
        {
          type: 'redis',
          name: 'due-timers',
          metadata: {
            listName: `${PREFIX}bull:jobs-timers:wait`,
            listLength: String(TIMERS_TARGET),
            activationListLength: '0',
          },
          authenticationRef: { name: REDIS_AUTH },
        },
        ...cpuMemory(),
      ],
      { min: 2, max: 6 },
    ),
  );
  const header = (what: string) =>
    `# Generated by \`npm run k8s:keda\` (scripts/keda-manifests.ts). Do not edit by hand: deploy/test/keda.test.ts fails when stale.\n# ${what}\n`;
  const busLine =
    bus === 'kafka'
      ? 'KEDA ScaledObjects for EVENT_BUS=kafka: consumers scale on their group lag per topic (Kafka scaler), the worker on due timers.'
      : 'KEDA ScaledObjects for EVENT_BUS=redis: consumers scale on their group lag per stream partition (Redis Streams scaler), the worker on due timers.';
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1alpha1',
    kind: 'Component',
    resources: ['scaledobjects.yaml'],
    // One autoscaler per Deployment: the ScaledObjects of jobs and payments replace their CPU HPAs.
    patches: [...HTTP_SCALED].map((name) => ({
      target: { kind: 'HorizontalPodAutoscaler', name },
      patch: `$patch: delete\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: ${name}\n`,
    })),
  };
  return {
    kustomization:
      header(`${busLine} Needs KEDA 2.12+ in the cluster; add to an overlay's components.`) +
      stringify(kustomization),
    objects: header(busLine) + objects.map((o) => stringify(o)).join('---\n'),
  };
}

export const COMPONENT_DIRS = { kafka: 'keda-kafka', redis: 'keda-redis-streams' } as const;

function main() {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const bus of ['kafka', 'redis'] as const) {
    const dir = path.join(COMPONENTS, COMPONENT_DIRS[bus]);
    const r = renderComponent(bus);
    for (const [file, text] of [
      ['kustomization.yaml', r.kustomization],
      ['scaledobjects.yaml', r.objects],
    ] as const) {
      const p = path.join(dir, file);
      if (check) {
        if (!existsSync(p) || readFileSync(p, 'utf8') !== text) {
          console.error(`${path.relative(root, p)} is stale: run \`npm run k8s:keda\``);
          stale = true;
        }
        continue;
      }
      mkdirSync(dir, { recursive: true });
      writeFileSync(p, text);
      console.log(`wrote ${path.relative(root, p)}`);
    }
  }
  if (stale) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
