/**
 * A small window that stays on top of the site the tester is testing, for the recorder's
 * controls: the Document Picture-in-Picture API where the browser has it (Chromium 116+, a secure
 * context), a pop-up window otherwise. Both need a user gesture (call from a click). The window
 * gets the app's style sheets, so the controls rendered into it (a React portal) look the same.
 */
export type FloatingKind = 'pip' | 'popup';
export interface FloatingWindow {
  win: Window;
  kind: FloatingKind;
}

interface DocumentPictureInPicture {
  requestWindow(options: { width: number; height: number }): Promise<Window>;
  window: Window | null;
}

/** The Document Picture-in-Picture API of this browser, or null. */
export function pictureInPicture(w: Window = window): DocumentPictureInPicture | null {
  const api = (w as Window & { documentPictureInPicture?: DocumentPictureInPicture })
    .documentPictureInPicture;
  return api && typeof api.requestWindow === 'function' ? api : null;
}

/** Copies the page's style sheets (links and style elements) into the floating window. */
export function copyStyles(from: Document, to: Document): void {
  for (const node of Array.from(
    from.querySelectorAll<HTMLElement>('link[rel="stylesheet"], style'),
  )) {
    to.head.append(to.importNode(node, true));
  }
}

export const FLOATING_SIZE = { width: 340, height: 170 };

/**
 * Opens the floating window (PiP first, then a pop-up) titled `title`, with the page's styles;
 * null when the browser allows neither (a blocked pop-up).
 */
export async function openFloatingWindow(title: string): Promise<FloatingWindow | null> {
  let floating: FloatingWindow | null = null;
  const pip = pictureInPicture();
  if (pip) {
    try {
      floating = { win: await pip.requestWindow(FLOATING_SIZE), kind: 'pip' };
    } catch {
      floating = null; // refused (no gesture left, or not allowed here): try a pop-up
    }
  }
  if (!floating) {
    const win = window.open(
      '',
      'humantest-recorder',
      `popup,width=${FLOATING_SIZE.width},height=${FLOATING_SIZE.height + 40}`,
    );
    if (!win) return null;
    floating = { win, kind: 'popup' };
  }
  const doc = floating.win.document;
  doc.title = title;
  doc.documentElement.lang = document.documentElement.lang || 'en';
  doc.body.innerHTML = '';
  copyStyles(document, doc);
  return floating;
}
