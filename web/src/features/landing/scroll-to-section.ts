import { scrollBehavior } from '../../lib/motion';

/**
 * Scrolls an in-page section into view and moves the focus to it (the landing's anchors); no
 * smooth scrolling for a visitor who prefers reduced motion.
 */
export function scrollToSection(id: string): void {
  const el = document.getElementById(id);
  if (!el) return;
  el.scrollIntoView({ behavior: scrollBehavior(), block: 'start' });
  el.focus({ preventScroll: true });
}
