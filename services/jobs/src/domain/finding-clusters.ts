import { stemmer } from 'stemmer';
import { eng, removeStopwords } from 'stopword';
import { FINDING_SEVERITIES, type FindingSeverity, type PackCluster } from '@htm/contracts';

/**
 * "What they agree on" (GET /api/packs/{id}): the findings of a pack's testers grouped by the
 * similarity of their text. Each finding becomes a TF-IDF vector over its normalised words
 * (lower case, English stop words removed with `stopword`, Porter-stemmed with `stemmer`, so
 * "hidden"/"hides" and "buttons"/"button" meet), compared by cosine similarity. Clusters are
 * merged greedily, most similar pair first, while the average similarity between the two groups
 * stays at or above CLUSTER_THRESHOLD (average linkage: one loose link cannot chain unrelated
 * findings together). No model, nothing downloaded: pure and deterministic.
 */
export const CLUSTER_THRESHOLD = 0.25;

export interface PackFinding {
  jobId: string;
  text: string;
  severity: FindingSeverity | null;
}

/** Words of a finding that carry its meaning: lower case, no stop words, stemmed. */
export function findingTerms(text: string): string[] {
  const words = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
  return removeStopwords(words, eng).map((w) => stemmer(w));
}

type Vector = Map<string, number>;

/** TF-IDF vectors (smoothed idf), each normalised to length 1. */
function tfidfVectors(docs: string[][]): Vector[] {
  const df = new Map<string, number>();
  for (const terms of docs) for (const t of new Set(terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return docs.map((terms) => {
    const v: Vector = new Map();
    for (const t of terms) v.set(t, (v.get(t) ?? 0) + 1);
    let norm = 0;
    for (const [t, tf] of v) {
      const w = tf * (Math.log((1 + n) / (1 + (df.get(t) ?? 0))) + 1);
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [t, w] of v) v.set(t, w / norm);
    return v;
  });
}

function cosine(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) dot += w * (large.get(t) ?? 0);
  return dot;
}

const severityRank = (s: FindingSeverity | null): number =>
  s ? FINDING_SEVERITIES.indexOf(s) : FINDING_SEVERITIES.length;

/**
 * Groups findings that say the same thing; sorted by how many different testers (jobs) hit each,
 * then by the worst severity in it, then by summary. A cluster's summary is its most central text.
 */
export function clusterFindings(
  findings: readonly PackFinding[],
  threshold = CLUSTER_THRESHOLD,
): PackCluster[] {
  const items = findings.filter((f) => f.text.trim().length > 0);
  if (!items.length) return [];
  const vectors = tfidfVectors(items.map((f) => findingTerms(f.text)));
  const sim = items.map((_, i) =>
    items.map((__, j) => (i === j ? 1 : cosine(vectors[i], vectors[j]))),
  );

  let groups: number[][] = items.map((_, i) => [i]);
  const avgLink = (a: number[], b: number[]) => {
    let sum = 0;
    for (const i of a) for (const j of b) sum += sim[i][j];
    return sum / (a.length * b.length);
  };
  for (;;) {
    let best: { a: number; b: number; s: number } | undefined;
    for (let a = 0; a < groups.length; a++) {
      for (let b = a + 1; b < groups.length; b++) {
        const s = avgLink(groups[a], groups[b]);
        if (s >= threshold && (!best || s > best.s)) best = { a, b, s };
      }
    }
    if (!best) break;
    const merged = [...groups[best.a], ...groups[best.b]];
    groups = groups.filter((_, k) => k !== best.a && k !== best.b);
    groups.push(merged);
  }

  const clusters = groups.map((g) => {
    const members = [...g].sort((i, j) => i - j);
    // The most central finding (highest average similarity to the others; the shorter on a tie).
    const central = members.reduce((best, i) => {
      const score = (k: number) => members.reduce((acc, j) => acc + sim[k][j], 0);
      const d = score(i) - score(best);
      return d > 1e-9 || (Math.abs(d) <= 1e-9 && items[i].text.length < items[best].text.length)
        ? i
        : best;
    }, members[0]);
    const jobIds = [...new Set(members.map((i) => items[i].jobId))];
    return {
      summary: items[central].text.trim(),
      count: jobIds.length,
      job_ids: jobIds,
      findings: members.map((i) => ({
        job_id: items[i].jobId,
        text: items[i].text,
        severity: items[i].severity,
      })),
      worst: Math.min(...members.map((i) => severityRank(items[i].severity))),
    };
  });
  clusters.sort(
    (x, y) => y.count - x.count || x.worst - y.worst || x.summary.localeCompare(y.summary),
  );
  return clusters.map(({ worst: _worst, ...c }) => c);
}
