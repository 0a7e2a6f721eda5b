/** Shared readers for the deploy tests: manifests, the Dockerfile, the compose file. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const K8S = path.join(ROOT, 'deploy', 'k8s');

/**
 * A parsed manifest object, or any node of one: a YAML tree of every kind (Deployment, Service,
 * NetworkPolicy, ...) that the tests walk freely. Its shape is checked against the Kubernetes
 * schemas by kubernetes-models (k8s.test.ts), not by TypeScript, hence the `any` below.
 */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [k: string]: unknown };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an untyped YAML tree, see above
  [k: string]: any;
};

export function walk(dir: string, ext = /\.ya?ml$/): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p, ext) : ext.test(f) ? [p] : [];
  });
}

/** Every YAML document of a file (throws on a parse error, naming the file). */
export function readYamlDocs(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { merge: true });
  return docs
    .map((d) => {
      if (d.errors.length) throw new Error(`${path.relative(ROOT, file)}: ${d.errors[0].message}`);
      return d.toJS() as unknown;
    })
    .filter((d) => d != null);
}

/** Kubernetes objects of the manifests under deploy/k8s (not kustomizations). */
export function manifestObjects(): Array<{ file: string; obj: K8sObject }> {
  return walk(K8S)
    .filter((f) => path.basename(f) !== 'kustomization.yaml')
    .flatMap((file) =>
      readYamlDocs(file).map((obj) => ({ file: path.relative(ROOT, file), obj: obj as K8sObject })),
    );
}

export interface DockerStage {
  name: string;
  from: string;
  lines: string[];
}

/** Stages of the Dockerfile (continuation lines joined). */
export function dockerStages(file = path.join(ROOT, 'Dockerfile')): {
  args: Record<string, string>;
  stages: DockerStage[];
} {
  const text = readFileSync(file, 'utf8').replace(/\\\n/g, ' ');
  const args: Record<string, string> = {};
  const stages: DockerStage[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (m) {
      stages.push({ name: m[2] ?? `stage${stages.length}`, from: m[1], lines: [] });
      continue;
    }
    const a = /^ARG\s+([A-Z_]+)=(\S+)/.exec(line);
    if (a && !stages.length) args[a[1]] = a[2];
    stages.at(-1)?.lines.push(line);
  }
  return { args, stages };
}

/** Service image targets: stages built FROM the runtime stage (image htm/<target>). */
export function serviceTargets(): string[] {
  return dockerStages()
    .stages.filter((s) => s.from === 'runtime' || s.from === 'runtime-chromium')
    .map((s) => s.name);
}

export function exists(p: string): boolean {
  return existsSync(p);
}
