/**
 * The layout audit's checks (web/e2e/layout.test.ts): one screen of the app, as it is now, at
 * each of the widths a person uses (320, 390, 768 and 1280 px). At each width it measures, in the
 * page, what a person would see wrong:
 * - overflow: the page or an open dialog scrolls sideways, or an element sticks out of the window
 *   or of its container (outside a region that scrolls sideways on purpose, e.g. a table's);
 * - overlap: two form controls, buttons, tabs or labels share pixels;
 * - clipped: the text of a button, tab, badge or label does not fit in it;
 * - unreachable: a focusable control lies outside the window and cannot be scrolled to (outside
 *   the page, or cut away by a box that hides its overflow);
 * and runs axe (every rule; violations of serious or critical impact count). With a dialog open,
 * the dialog is what is measured and audited (the page behind it was audited on its own).
 *
 * A width with a problem is saved as a full-page PNG in test-results/layout/ (named in the
 * message); LAYOUT_SHOTS=1 saves every screen at every width.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const LAYOUT_DIR = path.join(root, 'test-results', 'layout');
export const WIDTHS = [1280, 768, 390, 320] as const;
const HEIGHT = 800;
// The axe-core that @axe-core/playwright is tested with.
const requireHere = createRequire(import.meta.url);
const axeSource = readFileSync(
  createRequire(requireHere.resolve('@axe-core/playwright')).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** The in-page measure (serialised into the page: no closures over this module). */
function measure(): string[] {
  const out: string[] = [];
  const W = window.innerWidth;
  const dialog = document.querySelector<HTMLElement>('[role="dialog"]');
  const scope: HTMLElement = dialog ?? document.body;
  const name = (el: Element) => {
    const label =
      el.getAttribute('aria-label') ??
      (el as HTMLElement).innerText?.trim() ??
      el.getAttribute('placeholder') ??
      '';
    const id = el.id ? `#${el.id}` : '';
    const cls =
      typeof el.className === 'string' && el.className
        ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}`
        : '';
    const text = label.replace(/\s+/g, ' ').slice(0, 40);
    return `<${el.tagName.toLowerCase()}${id}${cls}>${text ? ` "${text}"` : ''}`;
  };
  const style = (el: Element) => getComputedStyle(el);
  /** Shown and not visually hidden (sr-only: 1 px boxes; clip). */
  const shown = (el: Element) => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    // Not rendered although it has a box: the content of a closed <details> (content-visibility).
    if (
      !(el as Element & { checkVisibility?: (o: object) => boolean }).checkVisibility?.({
        opacityProperty: true,
        visibilityProperty: true,
        contentVisibilityAuto: true,
      }) &&
      'checkVisibility' in el
    )
      return false;
    for (let a: Element | null = el; a; a = a.parentElement) {
      const s = style(a);
      if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') return false;
      if (s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)') return false;
    }
    return true;
  };
  /** The nearest ancestor that scrolls sideways on purpose, inside the scope. */
  const scrollsSideways = (el: Element) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = style(a);
      if (/(auto|scroll)/.test(s.overflowX)) return a;
    }
    return null;
  };
  const layered = (el: Element) => {
    for (let a: Element | null = el; a && a !== scope; a = a.parentElement) {
      const p = style(a).position;
      if (p === 'fixed' || p === 'sticky' || p === 'absolute') return true;
    }
    return false;
  };

  // 1. The page (and an open dialog) scroll sideways.
  const pageOver = document.documentElement.scrollWidth - W;
  if (pageOver > 0) out.push(`overflow: the page is ${pageOver} px wider than the window`);
  if (dialog && dialog.scrollWidth > dialog.clientWidth)
    out.push(`overflow: the dialog is ${dialog.scrollWidth - dialog.clientWidth} px too wide`);

  const all = Array.from(scope.querySelectorAll('*')).filter(
    (el) => !(el instanceof SVGElement && el.tagName !== 'svg') && shown(el),
  );
  // 2. Elements out of the window or wider than their container (the outermost one is named).
  const flagged = new Set<Element>();
  const under = (el: Element) => {
    for (let a = el.parentElement; a; a = a.parentElement) if (flagged.has(a)) return true;
    return false;
  };
  for (const el of all) {
    if (scrollsSideways(el) || under(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.right > W + 1 || r.left < -1) {
      flagged.add(el);
      out.push(
        `overflow: ${name(el)} reaches ${Math.round(r.left)}..${Math.round(r.right)} px, outside the window (0..${W})`,
      );
      continue;
    }
    const parent = el.parentElement;
    if (!parent || parent === document.body || style(el).position === 'absolute') continue;
    if (style(el).position === 'fixed' || style(parent).display === 'contents') continue;
    const p = parent.getBoundingClientRect();
    // A box of no width is a positioning device (recharts' ResponsiveContainer), not a container.
    if (p.width < 1) continue;
    const over = Math.max(r.right - p.right, p.left - r.left);
    if (over > 1 && style(parent).overflowX === 'visible') {
      flagged.add(el);
      out.push(`overflow: ${name(el)} is ${Math.round(over)} px wider than ${name(parent)}`);
    }
  }

  // 3. Controls and labels that overlap.
  // A link that looks like a button: its class (button.module.css, hashed in the build) keeps "btn".
  const controls = all.filter((el) =>
    el.matches(
      'input:not([type="hidden"]), select, textarea, button, a[class*="btn"], [role="button"], [role="tab"], summary, label',
    ),
  );
  // An inline label that wraps is one box per line (its bounding box would span the lines).
  const boxes = (el: Element) =>
    style(el).display === 'inline' ? Array.from(el.getClientRects()) : [el.getBoundingClientRect()];
  for (let i = 0; i < controls.length; i++) {
    const a = controls[i];
    for (let j = i + 1; j < controls.length; j++) {
      const b = controls[j];
      if (a.contains(b) || b.contains(a) || layered(a) !== layered(b)) continue;
      let worst = { x: 0, y: 0 };
      for (const ra of boxes(a))
        for (const rb of boxes(b)) {
          const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
          const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
          if (x > 1 && y > 1 && x * y > worst.x * worst.y) worst = { x, y };
        }
      if (worst.x)
        out.push(
          `overlap: ${name(a)} and ${name(b)} share ${Math.round(worst.x)}x${Math.round(worst.y)} px`,
        );
    }
  }

  // 4. Text that does not fit in its button, tab, badge or label.
  for (const el of all) {
    if (
      !el.matches(
        'button, a[class*="btn"], [role="tab"], [class*="badge"], label, summary, legend, th',
      )
    )
      continue;
    const h = el as HTMLElement;
    if (style(h).display === 'inline' || !h.clientWidth) continue;
    const overX = h.scrollWidth - h.clientWidth;
    const overY = style(h).overflowY === 'visible' ? 0 : h.scrollHeight - h.clientHeight;
    if (overX > 1 || overY > 1)
      out.push(
        `clipped: the text of ${name(h)} needs ${overX > 1 ? `${overX} px more width` : `${overY} px more height`}`,
      );
  }

  // 5. Focusable controls nobody can scroll to.
  const focusable = all.filter((el) =>
    el.matches(
      'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])',
    ),
  );
  /**
   * Outside the page's scrollable area, outside the area of the box that scrolls it (that box
   * itself being reachable), or cut away by a box that hides its overflow.
   */
  const unreachable = (el: Element): boolean => {
    const r = el.getBoundingClientRect();
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = style(a);
      const c = a.getBoundingClientRect();
      if (/(auto|scroll)/.test(s.overflowX + s.overflowY)) {
        const x = r.left - c.left + a.scrollLeft;
        const y = r.top - c.top + a.scrollTop;
        if (x + r.width <= 0 || x >= a.scrollWidth || y + r.height <= 0 || y >= a.scrollHeight)
          return true;
        // A strip that scrolls without a scrollbar hides what lies past its edge from a person.
        const outside = r.right > c.right + 1 || r.left < c.left - 1;
        if (outside && s.scrollbarWidth === 'none') return true;
        return unreachable(a);
      }
      if (/(hidden|clip)/.test(s.overflowX + s.overflowY)) {
        if (r.right <= c.left || r.left >= c.right || r.bottom <= c.top || r.top >= c.bottom)
          return true;
      }
    }
    const left = r.left + window.scrollX;
    const top = r.top + window.scrollY;
    return (
      left + r.width <= 0 || left >= document.documentElement.scrollWidth || top + r.height <= 0
    );
  };
  const active = document.activeElement as HTMLElement | null;
  const scroll = [window.scrollX, window.scrollY];
  for (const el of focusable) {
    if (!unreachable(el)) continue;
    // A skip link (or any control) that comes into view when focused is reachable.
    (el as HTMLElement).focus({ preventScroll: true });
    const still = unreachable(el);
    (el as HTMLElement).blur();
    if (still)
      out.push(
        `unreachable: ${name(el)} is out of sight and cannot be scrolled to (or sits past the edge of a strip without a scrollbar)`,
      );
  }
  active?.focus?.({ preventScroll: true });
  window.scrollTo(scroll[0], scroll[1]);
  return out;
}

/** Two frames after a resize: the layout (and React, for a width a component reads) has run. */
async function settle(p: Page): Promise<void> {
  await p.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
    await frame();
    await frame();
  });
}

async function axeProblems(p: Page): Promise<string[]> {
  const has = await p.evaluate(() => 'axe' in window);
  if (!has) await p.evaluate(axeSource);
  return p.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{
            violations: Array<{
              id: string;
              impact: string | null;
              help: string;
              nodes: Array<{ target: unknown[] }>;
            }>;
          }>;
        };
      }
    ).axe;
    const dialog = document.querySelector('[role="dialog"]');
    const r = await axe.run(dialog ? { include: [['[role="dialog"]']] } : document, {
      resultTypes: ['violations'],
    });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `axe ${v.impact} ${v.id} (${v.help}): ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(', ')}`,
      );
  });
}

const fileName = (screen: string, width: number) =>
  `${screen
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}-${width}.png`;

/**
 * The page's problems once the layout has caught up with a resize: a chart (recharts'
 * ResponsiveContainer) takes its new width from a ResizeObserver a frame or more later (on a busy
 * machine, more), so while something overflows it measures again each frame, for up to 5 s, and
 * answers the last measure (an overflow that stays is still reported).
 */
async function settledProblems(p: Page): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const problems = await p.evaluate(measure);
    if (!problems.some((m) => m.startsWith('overflow')) || Date.now() > deadline) return problems;
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  }
}

/**
 * Audits the screen `p` shows now at every width (ending at the last of WIDTHS) and answers one
 * line per problem ("<screen> at <width> px: <problem>"), each failing width saved as a PNG.
 */
export async function auditScreen(p: Page, screen: string): Promise<string[]> {
  const found: string[] = [];
  for (const width of WIDTHS) {
    await p.setViewportSize({ width, height: HEIGHT });
    await settle(p);
    const problems = [...(await settledProblems(p)), ...(await axeProblems(p))];
    if (problems.length || process.env.LAYOUT_SHOTS) {
      mkdirSync(LAYOUT_DIR, { recursive: true });
      const file = path.join(LAYOUT_DIR, fileName(screen, width));
      await p.screenshot({ path: file, fullPage: true, animations: 'disabled' });
      for (const problem of problems)
        found.push(`${screen} at ${width} px: ${problem} [${path.relative(root, file)}]`);
    }
  }
  return found;
}
