/**
 * Scale on work, not only on CPU (issue #37): the KEDA components scale every event consumer on its
 * consumer group's lag (Kafka scaler, Redis Streams scaler) and the jobs worker on its due timers,
 * beside CPU and memory. The objects are valid KEDA resources, up to date with their generator, and
 * the prod overlay renders one autoscaler per Deployment.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import {
  AUTH_SECRET_KEYS,
  COMPONENT_DIRS,
  COMPONENTS,
  CONSUMED_SOURCES,
  KAFKA_PARTITIONS,
  REDIS_PARTITIONS,
  renderComponent,
} from '../../scripts/keda-manifests.js';
import { K8S, manifestObjects, readYamlDocs, type K8sObject } from './helpers.js';

const docsOf = (bus: 'kafka' | 'redis') =>
  readYamlDocs(path.join(COMPONENTS, COMPONENT_DIRS[bus], 'scaledobjects.yaml')) as K8sObject[];
const scaled = (bus: 'kafka' | 'redis') => docsOf(bus).filter((o) => o.kind === 'ScaledObject');
const deployments = manifestObjects()
  .filter((o) => o.file.startsWith('deploy/k8s/base/') && o.obj.kind === 'Deployment')
  .map((o) => o.obj.metadata.name);

describe.each([['kafka'], ['redis']] as const)('KEDA component (%s bus)', (bus) => {
  it('is what `npm run k8s:keda` generates (run it when this fails)', () => {
    const dir = path.join(COMPONENTS, COMPONENT_DIRS[bus]);
    const r = renderComponent(bus);
    expect(readFileSync(path.join(dir, 'scaledobjects.yaml'), 'utf8')).toBe(r.objects);
    expect(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')).toBe(r.kustomization);
  });

  it('holds valid KEDA ScaledObjects and TriggerAuthentications', () => {
    const problems: string[] = [];
    for (const o of docsOf(bus)) {
      try {
        (o.kind === 'ScaledObject'
          ? new ScaledObject(o as never)
          : new TriggerAuthentication(o as never)
        ).validate();
      } catch (err) {
        problems.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    // The schema check can fail: a ScaledObject without its target's name is refused.
    expect(() =>
      new ScaledObject({
        metadata: { name: 'x' },
        spec: { scaleTargetRef: {} as never, triggers: [] },
      }).validate(),
    ).toThrow(/name/);
  });

  it('scales every consumer group on its lag, per source it reads, and the worker on its due timers', () => {
    const objs = scaled(bus);
    expect(objs.map((o) => o.metadata.name).sort()).toEqual(
      [...Object.keys(CONSUMED_SOURCES), 'jobs-worker'].sort(),
    );
    for (const o of objs) expect(deployments).toContain(o.spec.scaleTargetRef.name);
    for (const [group, sources] of Object.entries(CONSUMED_SOURCES)) {
      const o = objs.find((x) => x.metadata.name === group)!;
      const lag = o.spec.triggers.filter(
        (t: K8sObject) => t.type === (bus === 'kafka' ? 'kafka' : 'redis-streams'),
      );
      for (const t of lag) expect(t.metadata.consumerGroup).toBe(group);
      if (bus === 'kafka') {
        expect(lag.map((t: K8sObject) => t.metadata.topic).sort()).toEqual(
          sources.map((s) => `htm.events.${s}`).sort(),
        );
        for (const t of lag) expect(t.metadata.bootstrapServersFromEnv).toBe('KAFKA_BROKERS');
        // The Kafka scaler logs in with SASL as its own principal (no anonymous listener needed).
        for (const t of lag) expect(t.authenticationRef.name).toBe('htm-keda-kafka');
      } else {
        const streams = sources.flatMap((s) =>
          Array.from({ length: REDIS_PARTITIONS }, (_, p) => `htm:events:${s}:${p}`),
        );
        expect(lag.map((t: K8sObject) => t.metadata.stream).sort()).toEqual(streams.sort());
        for (const t of lag) expect(t.authenticationRef.name).toBe('htm-keda-redis');
      }
      // CPU and memory still count, as with the HPAs.
      expect(o.spec.triggers.map((t: K8sObject) => t.type)).toEqual(
        expect.arrayContaining(['cpu', 'memory']),
      );
      // Consumers that only read events never get more replicas than there are partitions to read.
      if (!['jobs', 'payments'].includes(group))
        expect(o.spec.maxReplicaCount).toBeLessThanOrEqual(
          bus === 'kafka' ? KAFKA_PARTITIONS : REDIS_PARTITIONS,
        );
      expect(o.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
    }
    // site-check's checks wait in Postgres: a trigger on their count beside its lag.
    const siteCheck = objs.find((x) => x.metadata.name === 'site-check')!;
    expect(siteCheck.spec.triggers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'postgresql',
          metadata: expect.objectContaining({
            query: expect.stringContaining('FROM site_check.checks'),
          }),
          authenticationRef: { name: 'htm-keda-postgres' },
        }),
      ]),
    );
    const worker = objs.find((x) => x.metadata.name === 'jobs-worker')!;
    expect(worker.spec.triggers[0]).toMatchObject({
      type: 'redis',
      metadata: { listName: 'htm:bull:jobs-timers:wait' },
      authenticationRef: { name: 'htm-keda-redis' },
    });
  });

  it('reads the credentials of every scaler from keys the Secret template lists: the Redis user keda, and Kafka SASL on the Kafka bus', () => {
    const template = readYamlDocs(path.join(K8S, 'base', 'secret.template.yaml'))[0] as K8sObject;
    const auths = docsOf(bus).filter((o) => o.kind === 'TriggerAuthentication');
    expect(auths.map((a) => a.metadata.name).sort()).toEqual(
      bus === 'kafka'
        ? ['htm-keda-kafka', 'htm-keda-postgres', 'htm-keda-redis']
        : ['htm-keda-postgres', 'htm-keda-redis'],
    );
    for (const auth of auths) {
      for (const ref of auth.spec.secretTargetRef) {
        expect(ref.name).toBe('htm-secrets');
        expect(Object.keys(template.stringData)).toContain(ref.key);
      }
    }
    const params = (name: string) =>
      auths
        .find((a) => a.metadata.name === name)!
        .spec.secretTargetRef.map((r: K8sObject) => r.parameter)
        .sort();
    expect(params('htm-keda-redis')).toEqual(['address', 'password', 'username']);
    expect(template.stringData.KEDA_REDIS_USERNAME).toBe('keda');
    if (bus === 'kafka') {
      // KEDA's Kafka scaler: sasl mode, principal and password, TLS (SASL_SSL).
      expect(params('htm-keda-kafka')).toEqual(['password', 'sasl', 'tls', 'username']);
      expect(['scram_sha512', 'scram_sha256', 'plaintext']).toContain(
        template.stringData[AUTH_SECRET_KEYS['htm-keda-kafka'].sasl],
      );
      expect(template.stringData.KEDA_KAFKA_USERNAME).toBe('keda');
    }
    // Every trigger that needs credentials names a TriggerAuthentication of this component.
    for (const o of scaled(bus))
      for (const t of o.spec.triggers.filter((x: K8sObject) => !['cpu', 'memory'].includes(x.type)))
        expect(auths.map((a) => a.metadata.name)).toContain(t.authenticationRef?.name);
  });
});

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
(kubectl ? it : it.skip)(
  'the prod overlay renders one autoscaler per Deployment: KEDA for the consumers and the worker, the HPA for the gateway',
  () => {
    const r = spawnSync('kubectl', ['kustomize', path.join(K8S, 'overlays', 'prod')], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const docs = parseAllDocuments(r.stdout)
      .map((d) => d.toJS() as K8sObject)
      .filter(Boolean);
    const targets = docs
      .filter((d) => d.kind === 'ScaledObject' || d.kind === 'HorizontalPodAutoscaler')
      .map((d) => `${d.kind}:${d.spec.scaleTargetRef.name}`)
      .sort();
    expect(targets).toEqual(
      [
        'HorizontalPodAutoscaler:gateway',
        ...[...Object.keys(CONSUMED_SOURCES), 'jobs-worker'].map((n) => `ScaledObject:${n}`),
      ].sort(),
    );
    for (const d of docs.filter(
      (x) => x.kind === 'ScaledObject' || x.kind === 'TriggerAuthentication',
    ))
      expect(d.metadata.namespace).toBe('htm-prod');
  },
);
