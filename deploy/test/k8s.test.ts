/**
 * Kubernetes manifests (deploy/k8s): every object is valid against the Kubernetes schemas
 * (kubernetes-models, offline), every Deployment is probed, bounded and locked down, images map to
 * Dockerfile targets, kustomizations reference files that exist, and the Secret stays a template.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { readFileSync } from 'node:fs';
import { collectKeys } from '../../scripts/env-example.js';
import {
  exists,
  K8S,
  manifestObjects,
  ROOT,
  serviceTargets,
  walk,
  type K8sObject,
} from './helpers.js';

const objects = manifestObjects();
const base = objects
  .filter((o) => o.file.startsWith('deploy/k8s/base/') && !o.file.endsWith('secret.template.yaml'))
  .map((o) => o.obj);
const deployments = base.filter((o) => o.kind === 'Deployment');
const SERVICES = [
  'gateway',
  'identity',
  'jobs',
  'jobs-worker',
  'payments',
  'admin',
  'notifications',
  'analytics',
  'site-check',
];

/** Validates one object with the kubernetes-models class of its apiVersion/kind; returns the problem or null. */
async function validate(obj: K8sObject): Promise<string | null> {
  let mod: Record<string, unknown>;
  try {
    // KEDA's custom resources (ScaledObject, TriggerAuthentication) from its kubernetes-models package.
    const pkg = obj.apiVersion.startsWith('keda.sh/')
      ? '@kubernetes-models/keda'
      : 'kubernetes-models';
    mod = (await import(`${pkg}/${obj.apiVersion}`)) as Record<string, unknown>;
  } catch {
    return `no schema for apiVersion ${obj.apiVersion}`;
  }
  const Model = (mod[obj.kind] ??
    (mod.default as Record<string, unknown> | undefined)?.[obj.kind]) as
    (new (o: unknown) => { validate(): void }) | undefined;
  if (!Model) return `no schema for ${obj.apiVersion} ${obj.kind}`;
  try {
    new Model(obj).validate();
    return null;
  } catch (err) {
    return (err as Error).message.slice(0, 500);
  }
}

function kubectlAvailable(): boolean {
  return spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
}

describe('k8s manifests', () => {
  it('parse and validate against the Kubernetes object schemas', async () => {
    expect(objects.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const { file, obj } of objects) {
      const p = await validate(obj);
      if (p) problems.push(`${file} ${obj.kind}/${obj.metadata?.name}: ${p}`);
    }
    expect(problems).toEqual([]);
  });

  it('the validator rejects a broken object (the check above can fail)', async () => {
    const bad = structuredClone(deployments[0]);
    bad.spec.replicas = 'two';
    bad.spec.template.spec.containers[0].resources.limits.cpu = 'lots';
    expect(await validate(bad)).toMatch(/replicas|cpu/);
  });

  it('has one Deployment per service and the jobs worker, each with an image a Dockerfile target builds', () => {
    const targets = serviceTargets();
    expect(targets.sort()).toEqual([...SERVICES].sort());
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...SERVICES].sort());
    for (const d of deployments) {
      const [c] = d.spec.template.spec.containers;
      const target = /^htm\/([a-z-]+)$/.exec(c.image)?.[1];
      expect({ deployment: d.metadata.name, target }).toEqual({
        deployment: d.metadata.name,
        target: expect.stringMatching(/./),
      });
      expect(targets).toContain(target);
    }
  });

  describe.each(SERVICES)('Deployment %s', (name) => {
    const d = deployments.find((x) => x.metadata.name === name)!;
    const pod = d?.spec.template.spec;
    const c = pod?.containers[0];

    it('has readiness (/readyz) and liveness (/healthz) probes on its http port', () => {
      expect(c.readinessProbe.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
      expect(c.livenessProbe.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
      const port = c.ports.find((p: { name: string }) => p.name === 'http');
      expect(port).toBeDefined();
      expect(c.env.find((e: { name: string }) => e.name === 'PORT')?.value).toBe(
        String(port.containerPort),
      );
    });

    it('has resource requests and limits', () => {
      for (const k of ['requests', 'limits']) {
        expect(c.resources?.[k]?.cpu).toBeDefined();
        expect(c.resources?.[k]?.memory).toBeDefined();
      }
    });

    it('runs non-root with a restricted security context and a writable /tmp only', () => {
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c.securityContext.capabilities.add).toBeUndefined();
      const tmp = c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/tmp');
      expect(tmp).toBeDefined();
      expect(
        pod.volumes.find((v: { name: string }) => v.name === tmp.name)?.emptyDir,
      ).toBeDefined();
      for (const m of c.volumeMounts)
        expect(
          pod.volumes.find((v: { name: string; emptyDir?: unknown }) => v.name === m.name)
            ?.emptyDir,
        ).toBeDefined();
    });

    it('has a PodDisruptionBudget selecting it', () => {
      const pdb = base.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === name);
      expect(pdb?.spec.selector.matchLabels).toEqual(d.spec.selector.matchLabels);
    });

    it('runs two replicas by default (base and prod), and its PodDisruptionBudget keeps one up during a drain', () => {
      expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
      const prod = parse(
        readFileSync(path.join(K8S, 'overlays', 'prod', 'kustomization.yaml'), 'utf8'),
      ) as { replicas?: Array<{ name: string; count: number }> };
      const override = prod.replicas?.find((r) => r.name === name);
      if (override) expect(override.count).toBeGreaterThanOrEqual(2);
      const pdb = base.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === name)!;
      // One pod at a time may go: with two replicas the other keeps answering.
      expect(pdb.spec.maxUnavailable ?? d.spec.replicas - pdb.spec.minAvailable).toBe(1);
    });

    it('reads only known settings and only keys the Secret template declares', async () => {
      const known = new Set((await collectKeys()).map((k) => k.key));
      known.add('JOBS_WITH_WORKER'); // read by services/jobs/src/main.ts outside the schema
      const template = objects.find((o) => o.file.endsWith('secret.template.yaml'))!.obj;
      for (const e of c.env) {
        expect({ env: e.name, known: known.has(e.name) }).toEqual({ env: e.name, known: true });
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) {
          expect(ref.name).toBe('htm-secrets');
          expect(Object.keys(template.stringData)).toContain(ref.key);
        }
      }
    });
  });

  it('Services select existing Deployments; the Ingress reaches the gateway only', () => {
    for (const s of base.filter((o) => o.kind === 'Service')) {
      const d = deployments.find((x) => x.metadata.name === s.metadata.name);
      expect(d?.spec.template.metadata.labels).toMatchObject(s.spec.selector);
    }
    const ingresses = base.filter((o) => o.kind === 'Ingress');
    expect(ingresses).toHaveLength(1);
    const backends = ingresses[0].spec.rules.flatMap((r: K8sObject) =>
      r.http.paths.map((p: K8sObject) => p.backend.service.name),
    );
    expect([...new Set(backends)]).toEqual(['gateway']);
  });

  it('autoscales gateway, jobs and payments', () => {
    const hpas = base.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual([
      'gateway',
      'jobs',
      'payments',
    ]);
    for (const h of hpas)
      expect(deployments.map((d) => d.metadata.name)).toContain(h.spec.scaleTargetRef.name);
  });

  it('NetworkPolicies deny by default and open services only to the gateway and each other', () => {
    const nps = base.filter((o) => o.kind === 'NetworkPolicy');
    const deny = nps.find((n) => n.metadata.name === 'htm-default-deny')!;
    expect(deny.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/part-of': 'htm' });
    expect(deny.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    expect(deny.spec.ingress).toBeUndefined();
    const svc = nps.find((n) => n.metadata.name === 'services-from-gateway-and-peers')!;
    expect(svc.spec.podSelector.matchExpressions[0].values.sort()).toEqual([
      'admin',
      'identity',
      'jobs',
      'notifications',
      'payments',
    ]);
    for (const rule of svc.spec.ingress) {
      for (const from of rule.from) {
        expect(from.namespaceSelector).toBeUndefined();
        expect(from.ipBlock).toBeUndefined();
      }
    }
    const egress = nps.find((n) => n.metadata.name === 'htm-egress')!;
    const ports = egress.spec.egress.flatMap((r: K8sObject) =>
      r.ports.map((p: K8sObject) => p.port),
    );
    expect(ports).toEqual(expect.arrayContaining([53, 5432, 6379, 9092]));
  });

  it('analytics has its own NetworkPolicy: only the gateway reaches it, and the gateway may call its port', () => {
    const nps = base.filter((o) => o.kind === 'NetworkPolicy');
    const own = nps.find((n) => n.metadata.name === 'analytics-from-gateway')!;
    expect(own.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'analytics' });
    expect(
      own.spec.ingress.flatMap((r: K8sObject) =>
        r.from.map((f: K8sObject) => f.podSelector.matchLabels),
      ),
    ).toEqual([{ 'app.kubernetes.io/name': 'gateway' }]);
    const d = deployments.find((x) => x.metadata.name === 'analytics')!;
    const port = d.spec.template.spec.containers[0].ports[0].containerPort as number;
    const egress = nps.find((n) => n.metadata.name === 'htm-egress')!;
    const toPeers = egress.spec.egress
      .flatMap((r: K8sObject) => r.ports ?? [])
      .find((p: K8sObject) => p.port === 8080);
    expect(port).toBeGreaterThanOrEqual(toPeers.port);
    expect(port).toBeLessThanOrEqual(toPeers.endPort);
  });

  it("the Secret is a template: placeholders only (besides KEDA's user names and modes, which are no secrets), and not part of any kustomization", () => {
    const template = objects.find((o) => o.file.endsWith('secret.template.yaml'))!.obj;
    expect(template.kind).toBe('Secret');
    // Settings, not secrets: the read-only KEDA users' names (scripts/redis-acl.ts, the Kafka
    // principal User:keda) and the Kafka scaler's SASL and TLS modes (deploy/test/keda.test.ts).
    const settings: Record<string, string[]> = {
      KEDA_REDIS_USERNAME: ['keda'],
      KEDA_KAFKA_USERNAME: ['keda'],
      KEDA_KAFKA_SASL: ['scram_sha512', 'scram_sha256', 'plaintext'],
      KEDA_KAFKA_TLS: ['enable', 'disable'],
    };
    for (const [k, v] of Object.entries(template.stringData as Record<string, string>)) {
      const allowed = settings[k] ?? ['CHANGE_ME', ''];
      expect({ key: k, value: allowed.includes(v) }).toEqual({ key: k, value: true });
    }
    for (const k of Object.keys(settings)) expect(Object.keys(template.stringData)).toContain(k);
    for (const k of walk(K8S).filter((f) => path.basename(f) === 'kustomization.yaml')) {
      const kz = parse(readFileSync(k, 'utf8')) as { resources?: string[] };
      expect((kz.resources ?? []).filter((r) => r.includes('secret'))).toEqual([]);
    }
  });
});

describe('kustomize', () => {
  const kustomizations = walk(K8S).filter((f) => path.basename(f) === 'kustomization.yaml');

  it('base, the dev and prod overlays and the KEDA components exist', () => {
    expect(kustomizations.map((f) => path.relative(K8S, f)).sort()).toEqual([
      'base/kustomization.yaml',
      'components/keda-kafka/kustomization.yaml',
      'components/keda-redis-streams/kustomization.yaml',
      'overlays/dev/kustomization.yaml',
      'overlays/prod/kustomization.yaml',
    ]);
  });

  it.each(kustomizations.map((f) => [path.relative(ROOT, f)]))(
    '%s references files that exist and images of Dockerfile targets',
    (rel) => {
      const file = path.join(ROOT, rel);
      const dir = path.dirname(file);
      const k = parse(readFileSync(file, 'utf8')) as Record<string, K8sObject[] & string[]>;
      const missing: string[] = [];
      for (const r of k.resources ?? []) {
        const p = path.join(dir, r);
        if (!exists(p) || (!r.endsWith('.yaml') && !exists(path.join(p, 'kustomization.yaml'))))
          missing.push(r);
      }
      for (const c of k.components ?? [])
        if (!exists(path.join(dir, c, 'kustomization.yaml'))) missing.push(c);
      for (const p of k.patches ?? [])
        if (p.path && !exists(path.join(dir, p.path))) missing.push(p.path);
      for (const g of [...(k.configMapGenerator ?? []), ...(k.secretGenerator ?? [])]) {
        for (const f of [...(g.files ?? []), ...(g.envs ?? [])])
          if (!exists(path.join(dir, String(f).split('=').at(-1)!))) missing.push(f);
      }
      expect(missing).toEqual([]);
      const targets = serviceTargets();
      for (const img of k.images ?? [])
        expect(targets).toContain(/^htm\/(.+)$/.exec(img.name)?.[1]);
    },
  );

  const kubectl = kubectlAvailable();
  if (!kubectl) console.log('kustomize render check skipped: kubectl is not installed');
  (kubectl ? it.each : it.skip.each)([['base'], ['overlays/dev'], ['overlays/prod']])(
    'kubectl kustomize %s renders valid objects',
    async (dir) => {
      const r = spawnSync('kubectl', ['kustomize', path.join(K8S, dir)], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const docs = readYamlDocsFromText(r.stdout);
      const problems: string[] = [];
      for (const obj of docs) {
        const p = await validate(obj);
        if (p) problems.push(`${obj.kind}/${obj.metadata.name}: ${p}`);
      }
      expect(problems).toEqual([]);
      const deps = docs.filter((d) => d.kind === 'Deployment');
      expect(deps).toHaveLength(SERVICES.length);
      if (dir !== 'base') {
        for (const d of docs)
          if (d.kind !== 'Namespace') expect(d.metadata.namespace).toMatch(/^htm-(dev|prod)$/);
        // Every image is still one of ours, with a pinned tag.
        for (const d of deps)
          expect(d.spec.template.spec.containers[0].image).toMatch(/htm\/[a-z-]+:[\w.-]+$/);
      }
      if (dir === 'overlays/dev') {
        const secret = docs.find((d) => d.kind === 'Secret');
        expect(secret?.metadata.name).toMatch(/^htm-secrets-/);
        // The generated name is what the Deployments reference.
        const refs = deps.flatMap((d) =>
          d.spec.template.spec.containers[0].env
            .map((e: K8sObject) => e.valueFrom?.secretKeyRef?.name)
            .filter(Boolean),
        );
        expect(new Set(refs)).toEqual(new Set([secret!.metadata.name]));
      }
    },
  );
});

function readYamlDocsFromText(text: string): K8sObject[] {
  return parseAllDocuments(text, { merge: true })
    .map((d) => {
      if (d.errors.length) throw new Error(d.errors[0].message);
      return d.toJS() as K8sObject;
    })
    .filter(Boolean);
}
