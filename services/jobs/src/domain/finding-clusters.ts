import { FINDING_SEVERITIES, type FindingSeverity, type PackCluster } from '@htm/contracts';

/**
 * "What they agree on" (GET /api/packs/{id}, the report's summary): the findings of a pack's
 * testers grouped when they describe the same problem, in the same words or in others.
 *
 * A finding is read as its meaningful words (a Lexicon: lemmas, negation, WordNet meanings; the
 * jobs service's is providers/lexicon.ts over wink-nlp and WordNet 3.1, nothing downloaded).
 * Two words say the same thing when they share a lemma ("buttons"/"button"), a meaning
 * (synonyms: "price"/"cost"; derivations: "creation"/"create"; "hidden"/"invisible"), the meaning
 * of an opposite under negation ("not visible"/"hidden"), or a kind of problem ("broken",
 * "hidden", "slow", ...); less when one is the other's or shares its direct hypernym
 * ("photo"/"image"). Two findings are compared word by word, each word with its best match in the
 * other, weighted by how rare the word is in the pack (so "page" or "button" count for little),
 * both ways averaged (Mihalcea, Corley and Strapparava's text similarity, 2006). A finding's
 * defect words (what is wrong: its verbs, adjectives, negated words, problem kinds) must meet
 * some defect word of the other, else the score is cut: "the add to cart button is disabled" and
 * "... is too small" name the same button but not the same problem.
 * Groups are merged greedily, most similar first, while the average similarity between two groups
 * stays at or above SAME_PROBLEM_THRESHOLD (average linkage: one loose link cannot chain
 * unrelated findings). Pure and deterministic.
 */

/** One meaningful word of a finding, as a Lexicon reads it. */
export interface Term {
  /** The lemma ("creation", "create"; a compound joined: "checkout", "homepage"). */
  lemma: string;
  /** Said with a negation ("not visible", "doesn't load", "no confirmation", "hard to find"). */
  negated: boolean;
  /** What the word can mean (WordNet synset ids of its frequent senses and derived words). */
  concepts: ReadonlySet<string>;
  /** What its antonyms mean (negated, it means these). */
  opposites: ReadonlySet<string>;
  /** The direct hypernyms of its senses. */
  broader: ReadonlySet<string>;
  /** The kinds of problem it reports ("broken", "hidden", ...), negation applied. */
  kinds: ReadonlySet<string>;
  /** A thing (noun, number) rather than what is wrong with it. */
  thing: boolean;
}

export interface Lexicon {
  terms(text: string): Term[];
}

/** Two findings at or above this similarity describe the same problem. */
export const SAME_PROBLEM_THRESHOLD = 0.35;
/** Word similarity: same lemma 1; same meaning (synonym, derivation, opposite negated, problem kind): */
export const SAME_MEANING = 0.9;
/** ... one is the other's hypernym, or both share one: */
export const RELATED_MEANING = 0.5;
/** The score of two findings whose defect words never meet is multiplied by this. */
export const OTHER_DEFECT_FACTOR = 0.5;

const meet = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) return true;
  return false;
};

/** How close two words are in meaning (0 to 1). */
export function wordSimilarity(a: Term, b: Term): number {
  if (meet(a.kinds, b.kinds))
    return a.lemma === b.lemma && a.negated === b.negated ? 1 : SAME_MEANING;
  if (a.negated !== b.negated) {
    const [neg, pos] = a.negated ? [a, b] : [b, a];
    return meet(neg.opposites, pos.concepts) ? SAME_MEANING : 0;
  }
  if (a.lemma === b.lemma) return 1;
  if (meet(a.concepts, b.concepts)) return SAME_MEANING;
  if (meet(a.broader, b.broader) || meet(a.concepts, b.broader) || meet(a.broader, b.concepts))
    return RELATED_MEANING;
  return 0;
}

/** What a finding says is wrong: its verbs and adjectives, negated words and problem kinds. */
const isDefect = (t: Term) => !t.thing || t.negated || t.kinds.size > 0;

/** Weight of a word in a collection of findings: smoothed inverse document frequency of its lemma. */
export type TermWeight = (lemma: string) => number;

export function collectionWeights(docs: readonly Term[][]): TermWeight {
  const df = new Map<string, number>();
  for (const terms of docs)
    for (const l of new Set(terms.map((t) => t.lemma))) df.set(l, (df.get(l) ?? 0) + 1);
  const n = docs.length;
  return (lemma) => Math.log((1 + n) / (1 + (df.get(lemma) ?? 0))) + 1;
}

function directed(a: Term[], b: Term[], weight: TermWeight): number {
  let num = 0;
  let den = 0;
  for (const t of a) {
    const w = weight(t.lemma);
    den += w;
    let best = 0;
    for (const u of b) best = Math.max(best, wordSimilarity(t, u));
    num += w * best;
  }
  return den ? num / den : 0;
}

/** How likely two findings describe the same problem (0 to 1; SAME_PROBLEM_THRESHOLD decides). */
export function findingSimilarity(a: Term[], b: Term[], weight: TermWeight): number {
  if (!a.length || !b.length) return 0;
  const score = 0.5 * (directed(a, b, weight) + directed(b, a, weight));
  return score * partsMeet(a, b, isDefect, SAME_MEANING) * kindsAgree(a, b);
}

/** OTHER_DEFECT_FACTOR when both findings name a kind of problem and no kind is shared ("slow" vs "broken"), else 1. */
function kindsAgree(a: Term[], b: Term[]): number {
  const ka = new Set(a.flatMap((t) => [...t.kinds]));
  if (!ka.size) return 1;
  const kb = b.flatMap((t) => [...t.kinds]);
  return !kb.length || kb.some((k) => ka.has(k)) ? 1 : OTHER_DEFECT_FACTOR;
}

/** 1 when some word of that part meets its like in the other finding (or one has none), else OTHER_DEFECT_FACTOR. */
function partsMeet(a: Term[], b: Term[], part: (t: Term) => boolean, atLeast: number): number {
  const pa = a.filter(part);
  const pb = b.filter(part);
  if (!pa.length || !pb.length) return 1;
  return pa.some((t) => pb.some((u) => wordSimilarity(t, u) >= atLeast)) ? 1 : OTHER_DEFECT_FACTOR;
}

/** The similarity of every pair of texts, in the context of all of them (their word weights). */
export function similarityMatrix(lexicon: Lexicon, texts: readonly string[]): number[][] {
  const docs = texts.map((t) => lexicon.terms(t));
  const weight = collectionWeights(docs);
  const sim = docs.map(() => docs.map(() => 1));
  for (let i = 0; i < docs.length; i++)
    for (let j = i + 1; j < docs.length; j++)
      sim[i][j] = sim[j][i] = findingSimilarity(docs[i], docs[j], weight);
  return sim;
}

/**
 * Groups of item indexes by average linkage over a similarity matrix: the most similar pair of
 * groups is merged while its average similarity is at or above `threshold`. Ties go to the pair
 * with the smallest indexes, so the same input always gives the same groups.
 */
export function averageLinkage(
  sim: number[][],
  threshold = SAME_PROBLEM_THRESHOLD,
  start: number[][] = sim.map((_, i) => [i]),
): number[][] {
  let groups: number[][] = start.map((g) => [...g].sort((x, y) => x - y));
  groups.sort((x, y) => x[0] - y[0]);
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
        if (s >= threshold && (!best || s > best.s + 1e-12)) best = { a, b, s };
      }
    }
    if (!best) break;
    const merged = [...groups[best.a], ...groups[best.b]].sort((x, y) => x - y);
    groups = groups.filter((_, k) => k !== best.a && k !== best.b);
    groups.push(merged);
    groups.sort((x, y) => x[0] - y[0]);
  }
  return groups;
}

/** The most central member of a group (highest summed similarity to the others; the shorter text on a tie). */
export function centralMember(
  members: number[],
  sim: number[][],
  texts: readonly string[],
): number {
  const score = (k: number) => members.reduce((acc, j) => acc + sim[k][j], 0);
  return members.reduce((best, i) => {
    const d = score(i) - score(best);
    return d > 1e-9 || (Math.abs(d) <= 1e-9 && texts[i].length < texts[best].length) ? i : best;
  }, members[0]);
}

/**
 * A person's decision about two findings (by their indexes): the tester's "same problem?" yes, or
 * the owner's merge (same) or split (not the same).
 */
export interface PairDecision {
  a: number;
  b: number;
  same: boolean;
  by: 'tester' | 'owner';
}

/**
 * Groups of finding indexes that describe one problem: people's decisions first, then language.
 * Every "same" decision joins its two findings for certain (the owner's first, then the testers',
 * each skipped only where it would put two findings the owner split into one group); a "not the
 * same" decision keeps its two findings in different groups whatever their words; then the
 * grouping by language (averageLinkage) adds to those groups. So a tester's "same problem" and an
 * owner's merge or split hold through every recomputation. Deterministic.
 */
export function groupFindings(
  lexicon: Lexicon,
  texts: readonly string[],
  decisions: readonly PairDecision[] = [],
): { groups: number[][]; sim: number[][] } {
  const sim = similarityMatrix(lexicon, texts);
  const apart = new Set<string>();
  const key = (i: number, j: number) => (i < j ? `${i}:${j}` : `${j}:${i}`);
  for (const d of decisions) if (!d.same && d.a !== d.b) apart.add(key(d.a, d.b));
  const parent = texts.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i])));
  const members = (r: number) => texts.map((_, i) => i).filter((i) => root(i) === r);
  const ordered = [...decisions].sort(
    (x, y) => (x.by === 'owner' ? 0 : 1) - (y.by === 'owner' ? 0 : 1),
  );
  for (const d of ordered) {
    if (!d.same) continue;
    const ra = root(d.a);
    const rb = root(d.b);
    if (ra === rb) continue;
    const ma = members(ra);
    const mb = members(rb);
    if (ma.some((i) => mb.some((j) => apart.has(key(i, j))))) continue;
    parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  for (const k of apart) {
    const [i, j] = k.split(':').map(Number);
    sim[i][j] = sim[j][i] = Number.NEGATIVE_INFINITY;
  }
  const start = new Map<number, number[]>();
  texts.forEach((_, i) => start.set(root(i), [...(start.get(root(i)) ?? []), i]));
  // Findings joined by a decision count as one: their similarity to each other is certain.
  for (const g of start.values()) for (const i of g) for (const j of g) if (i !== j) sim[i][j] = 1;
  return { groups: averageLinkage(sim, SAME_PROBLEM_THRESHOLD, [...start.values()]), sim };
}

export interface PackFinding {
  jobId: string;
  submissionId: string;
  /** Its place in its report's key findings. */
  index: number;
  text: string;
  severity: FindingSeverity | null;
}

const severityRank = (s: FindingSeverity | null): number =>
  s ? FINDING_SEVERITIES.indexOf(s) : FINDING_SEVERITIES.length;

/** A person's decision about two findings named by report and place (jobs.finding_links). */
export interface FindingDecision {
  a: { submissionId: string; index: number };
  b: { submissionId: string; index: number };
  same: boolean;
  by: 'tester' | 'owner';
}

export const findingKey = (submissionId: string, index: number) => `${submissionId}:${index}`;

/** Decisions about findings by report and place, as decisions about their indexes in `at` (the others dropped). */
export function byIndex(
  decided: readonly FindingDecision[],
  at: ReadonlyMap<string, number>,
): PairDecision[] {
  return decided.flatMap((d) => {
    const a = at.get(findingKey(d.a.submissionId, d.a.index));
    const b = at.get(findingKey(d.b.submissionId, d.b.index));
    return a === undefined || b === undefined ? [] : [{ a, b, same: d.same, by: d.by }];
  });
}

/**
 * Groups findings that say the same thing (people's decisions first, then language: groupFindings);
 * sorted by how many different testers (jobs) hit each, then by the worst severity in it, then by
 * summary. A cluster's summary is its most central text.
 */
export function clusterFindings(
  findings: readonly PackFinding[],
  lexicon: Lexicon,
  decided: readonly FindingDecision[] = [],
): PackCluster[] {
  const items = findings.filter((f) => f.text.trim().length > 0);
  if (!items.length) return [];
  const texts = items.map((f) => f.text);
  const at = new Map(items.map((f, i) => [findingKey(f.submissionId, f.index), i]));
  const { groups, sim } = groupFindings(lexicon, texts, byIndex(decided, at));
  const clusters = groups.map((members) => {
    const central = centralMember(members, sim, texts);
    const jobIds = [...new Set(members.map((i) => items[i].jobId))];
    return {
      summary: items[central].text.trim(),
      count: jobIds.length,
      job_ids: jobIds,
      findings: members.map((i) => ({
        job_id: items[i].jobId,
        submission_id: items[i].submissionId,
        finding_index: items[i].index,
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

/**
 * The "same problem?" step: for each text a tester wrote, the `perText` findings of the others
 * closest to it (at least `minSimilarity`), closest first (ties: the earlier finding). Compared in
 * the context of all of them (their word weights). Deterministic.
 */
export function closestFindings<T extends { text: string }>(
  lexicon: Lexicon,
  mine: readonly string[],
  others: readonly T[],
  perText: number,
  minSimilarity: number,
): T[][] {
  const sim = similarityMatrix(lexicon, [...mine, ...others.map((o) => o.text)]);
  return mine.map((text, i) =>
    text.trim()
      ? others
          .map((o, j) => ({ o, j, s: sim[i][mine.length + j] }))
          .filter((x) => x.s >= minSimilarity)
          .sort((x, y) => y.s - x.s || x.j - y.j)
          .slice(0, perText)
          .map((x) => x.o)
      : [],
  );
}
