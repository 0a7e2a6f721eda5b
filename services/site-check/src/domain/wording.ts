import type { SiteCheckSize } from '@htm/contracts';

/**
 * The plain-language sentences of the health check: what an owner reads in the report, the share
 * page, the PDF and what the tester sees before starting. No jargon: what happens to a visitor,
 * a number, and what is usual.
 */

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const ON: Record<SiteCheckSize, string> = { phone: 'on a phone', desktop: 'on a computer' };
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Google's "good" limits of the Core Web Vitals (web.dev/vitals) and Lighthouse's for TBT. */
export const GOOD = { lcpMs: 2500, cls: 0.1, tbtMs: 200 } as const;
/** Above these a figure is "poor" (serious). */
export const POOR = { lcpMs: 4000, cls: 0.25, tbtMs: 600 } as const;
/** A page heavier than this is called out (the median page is about 2.5 MB). */
export const HEAVY_PAGE_BYTES = 3 * 1024 * 1024;

/** One accessibility rule's sentence, by axe rule id; others fall back to the rule's own help text. */
export function accessibilityText(rule: string, n: number, help: string): string {
  switch (rule) {
    case 'image-alt':
      return `${plural(n, 'image has', 'images have')} no text for screen readers`;
    case 'input-image-alt':
      return `${plural(n, 'image button has', 'image buttons have')} no text for screen readers`;
    case 'role-img-alt':
    case 'svg-img-alt':
      return `${plural(n, 'picture has', 'pictures have')} no text for screen readers`;
    case 'color-contrast':
      return `${plural(n, 'piece of text is', 'pieces of text are')} hard to read: too little contrast with the background`;
    case 'label':
    case 'select-name':
      return `${plural(n, 'form field has', 'form fields have')} no label, so screen readers cannot say what to enter`;
    case 'button-name':
      return `${plural(n, 'button has', 'buttons have')} no name a screen reader can say`;
    case 'link-name':
      return `${plural(n, 'link has', 'links have')} no text a screen reader can say`;
    case 'html-has-lang':
    case 'html-lang-valid':
      return 'The page does not say which language it is in, so screen readers may pronounce it wrongly';
    case 'document-title':
      return 'The page has no title, the name shown on browser tabs and in search results';
    case 'meta-viewport':
      return 'The page stops people from zooming in on a phone';
    case 'target-size':
      return `${plural(n, 'button or link is', 'buttons or links are')} too small or too close together to tap easily`;
    case 'frame-title':
      return `${plural(n, 'embedded frame has', 'embedded frames have')} no title for screen readers`;
    case 'aria-hidden-focus':
      return `${plural(n, 'hidden element can', 'hidden elements can')} still be reached with the keyboard`;
    default:
      return `${plural(n, 'element breaks', 'elements break')} an accessibility rule: ${help.replace(/\.$/, '')}`;
  }
}

export function lcpText(size: SiteCheckSize, ms: number): string {
  return `The page takes ${seconds(ms)} to show its main content ${ON[size]}: most sites take under ${seconds(GOOD.lcpMs)}`;
}

export function clsText(size: SiteCheckSize, cls: number): string {
  return `Parts of the page move while it loads ${ON[size]}, so people can tap or click the wrong thing (layout shift ${cls.toFixed(2)}: under ${GOOD.cls} is good)`;
}

export function tbtText(size: SiteCheckSize, ms: number): string {
  return `The page is busy and ignores taps and clicks for ${seconds(ms)} while it loads ${ON[size]}: under ${seconds(GOOD.tbtMs)} is good`;
}

export function consoleErrorText(n: number): string {
  return `The page reports ${plural(n, 'error', 'errors')} in the browser's console, a sign that something on it is broken`;
}

export function exceptionText(n: number, first: string): string {
  const what = first.length > 80 ? `${first.slice(0, 77)}...` : first;
  return `${plural(n, 'script on the page crashes', 'scripts on the page crash')} while it loads ("${what}")`;
}

export function failedRequestText(n: number): string {
  return `${plural(n, 'file the page asks for does', 'files the page asks for do')} not load (the server answers with an error)`;
}

export function brokenImageText(n: number): string {
  return `${plural(n, 'image does', 'images do')} not load: visitors see an empty space or a broken picture`;
}

export function brokenLinkText(n: number): string {
  return `${plural(n, 'link on the page leads', 'links on the page lead')} to a page that does not exist or fails`;
}

export function heavyPageText(size: SiteCheckSize, bytes: number): string {
  return `The page downloads ${(bytes / 1024 / 1024).toFixed(1)} MB ${ON[size]}: under 3 MB keeps it quick on slow connections`;
}

export function blockedText(n: number): string {
  return `The page asks for ${plural(n, 'file', 'files')} from a private network address that visitors' browsers cannot reach (the check did not fetch ${n === 1 ? 'it' : 'them'})`;
}
