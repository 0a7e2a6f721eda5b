import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import Konva from 'konva';
import styles from './screenshot-annotator.module.css';
import { buttonClass } from '../../../components/button';

type Tool = 'box' | 'arrow' | 'note' | 'blur';

const RED = '#d92d20';
const TOOL_LABELS: Record<Tool, string> = {
  box: 'Box',
  arrow: 'Arrow',
  note: 'Numbered note',
  blur: 'Blur',
};

/** The image with every 14th pixel spread over its square: what a blurred area shows. */
function pixelated(img: HTMLImageElement): HTMLCanvasElement {
  const block = 14;
  const small = document.createElement('canvas');
  small.width = Math.max(1, Math.ceil(img.naturalWidth / block));
  small.height = Math.max(1, Math.ceil(img.naturalHeight / block));
  small.getContext('2d')?.drawImage(img, 0, 0, small.width, small.height);
  const out = document.createElement('canvas');
  out.width = img.naturalWidth;
  out.height = img.naturalHeight;
  const ctx = out.getContext('2d');
  if (ctx) {
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(small, 0, 0, out.width, out.height);
  }
  return out;
}

/**
 * Draws on a screenshot before it is attached (issue #30, part 3): boxes, arrows, numbered notes
 * and blurred areas (pixelated, for an e-mail or a card number), on a Konva stage. With the mouse:
 * pick a tool and drag; select a mark to move or resize it. With the keyboard: "Add" puts the mark
 * in the middle and selects it; on the picture, arrow keys move it, Shift+arrows resize it,
 * Delete removes it. "Use annotated screenshot" hands back a PNG of the picture with the marks
 * (blurred areas flattened into it), so the original pixels never leave the browser.
 */
export function ScreenshotAnnotator({
  file,
  onDone,
  onCancel,
}: {
  file: File;
  onDone: (annotated: File) => void;
  onCancel: () => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const stage = useRef<Konva.Stage | null>(null);
  const layer = useRef<Konva.Layer | null>(null);
  const transformer = useRef<Konva.Transformer | null>(null);
  const blurSource = useRef<HTMLCanvasElement | null>(null);
  const scale = useRef(1);
  const notes = useRef(0);
  const [tool, setTool] = useState<Tool>('box');
  const [noteText, setNoteText] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [count, setCount] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const toolRef = useRef(tool);
  useEffect(() => {
    toolRef.current = tool;
  }, [tool]);
  const noteRef = useRef(noteText);
  useEffect(() => {
    noteRef.current = noteText;
  }, [noteText]);

  const select = (node: Konva.Node | null) => {
    transformer.current?.nodes(node ? [node] : []);
    setSelected(node ? (node.name() as string) : null);
    layer.current?.batchDraw();
  };

  /** A mark of `kind` at x,y (stage pixels) of size w,h; selected and draggable. */
  const addMark = (kind: Tool, x: number, y: number, w: number, h: number): Konva.Node | null => {
    const l = layer.current;
    if (!l) return null;
    let node: Konva.Node;
    if (kind === 'box') {
      node = new Konva.Rect({ x, y, width: w, height: h, stroke: RED, strokeWidth: 3 });
    } else if (kind === 'arrow') {
      node = new Konva.Arrow({
        x,
        y,
        points: [0, 0, w, h],
        stroke: RED,
        fill: RED,
        strokeWidth: 4,
        pointerLength: 12,
        pointerWidth: 12,
        hitStrokeWidth: 16,
      });
    } else if (kind === 'note') {
      const n = ++notes.current;
      const g = new Konva.Group({ x, y });
      g.add(new Konva.Circle({ radius: 14, fill: RED, stroke: '#fff', strokeWidth: 2 }));
      g.add(
        new Konva.Text({
          text: String(n),
          fontSize: 16,
          fontStyle: 'bold',
          fill: '#fff',
          width: 28,
          height: 28,
          x: -14,
          y: -14,
          align: 'center',
          verticalAlign: 'middle',
        }),
      );
      const text = noteRef.current.trim();
      if (text) {
        const label = new Konva.Label({ x: 18, y: -12 });
        label.add(new Konva.Tag({ fill: '#fff', stroke: RED, cornerRadius: 4 }));
        label.add(new Konva.Text({ text, fontSize: 14, padding: 5, fill: '#111' }));
        g.add(label);
      }
      node = g;
      setNoteText('');
    } else {
      // A clipped copy of the pixelated picture, its clip following a dashed handle.
      const handle = new Konva.Rect({ x, y, width: w, height: h, stroke: '#475467', dash: [6, 4] });
      const src = blurSource.current;
      const s = scale.current;
      const clip = new Konva.Group({
        listening: false,
        clipFunc: (ctx) =>
          ctx.rect(
            handle.x(),
            handle.y(),
            handle.width() * handle.scaleX(),
            handle.height() * handle.scaleY(),
          ),
      });
      if (src)
        clip.add(new Konva.Image({ image: src, width: src.width * s, height: src.height * s }));
      l.add(clip);
      handle.on('destroy', () => clip.destroy());
      node = handle;
    }
    const number = l.find('.mark').length + 1;
    node.name(`mark ${TOOL_LABELS[kind]} ${number}`);
    node.draggable(true);
    node.on('mousedown touchstart', (e) => {
      e.cancelBubble = true;
      select(node);
    });
    l.add(node as Konva.Shape | Konva.Group);
    l.add(transformer.current!);
    select(node);
    setCount((c) => c + 1);
    return node;
  };

  useEffect(() => {
    const url = URL.createObjectURL(file);
    const img = new window.Image();
    let disposed = false;
    img.onload = () => {
      if (disposed || !host.current) return;
      const width = Math.min(host.current.clientWidth || img.naturalWidth, img.naturalWidth);
      const s = width / img.naturalWidth;
      scale.current = s;
      blurSource.current = pixelated(img);
      const st = new Konva.Stage({ container: host.current, width, height: img.naturalHeight * s });
      const base = new Konva.Layer();
      base.add(new Konva.Image({ image: img, width, height: img.naturalHeight * s, name: 'base' }));
      const marks = new Konva.Layer();
      const tr = new Konva.Transformer({ rotateEnabled: false, ignoreStroke: true });
      marks.add(tr);
      st.add(base, marks);
      stage.current = st;
      layer.current = marks;
      transformer.current = tr;
      // Drawing with the mouse: press on the picture, drag, release.
      let drawing: { node: Konva.Node; x: number; y: number; kind: Tool } | null = null;
      st.on('mousedown touchstart', (e) => {
        if (e.target !== st && e.target.name() !== 'base') return;
        const p = st.getPointerPosition();
        if (!p) return;
        const kind = toolRef.current;
        const node = addMark(kind, p.x, p.y, kind === 'note' ? 0 : 1, kind === 'note' ? 0 : 1);
        drawing = node && kind !== 'note' ? { node, x: p.x, y: p.y, kind } : null;
      });
      st.on('mousemove touchmove', () => {
        const p = st.getPointerPosition();
        if (!drawing || !p) return;
        const { node, x, y, kind } = drawing;
        if (kind === 'arrow') (node as Konva.Arrow).points([0, 0, p.x - x, p.y - y]);
        else
          node.setAttrs({
            x: Math.min(x, p.x),
            y: Math.min(y, p.y),
            width: Math.abs(p.x - x),
            height: Math.abs(p.y - y),
          });
        marks.batchDraw();
      });
      st.on('mouseup touchend', () => {
        if (!drawing) return;
        const { node, kind } = drawing;
        drawing = null;
        // A click without a drag: a mark of the default size there.
        if (kind === 'arrow') {
          const [, , dx, dy] = (node as Konva.Arrow).points();
          if (Math.abs(dx) + Math.abs(dy) < 8) (node as Konva.Arrow).points([0, 0, 80, 50]);
        } else if (node.width() < 8 || node.height() < 8) node.setAttrs({ width: 120, height: 60 });
        select(node);
      });
    };
    img.onerror = () => setError('This screenshot could not be opened for drawing.');
    img.src = url;
    return () => {
      disposed = true;
      URL.revokeObjectURL(url);
      // (addMark reads only refs: the stage is built once per file.)
      stage.current?.destroy();
      stage.current = null;
    };
  }, [file]);

  const addInMiddle = () => {
    const st = stage.current;
    if (!st) return;
    const w = tool === 'arrow' ? 80 : 140;
    const h = tool === 'arrow' ? 50 : 60;
    addMark(tool, st.width() / 2 - w / 2, st.height() / 2 - h / 2, w, h);
    host.current?.focus();
  };

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const node = transformer.current?.nodes()[0];
    if (!node) return;
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      node.destroy();
      select(null);
      setCount((c) => c - 1);
      return;
    }
    const step = 5;
    const d = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    }[e.key];
    if (!d) return;
    e.preventDefault();
    if (e.shiftKey && node instanceof Konva.Arrow) {
      const [, , dx, dy] = node.points();
      node.points([0, 0, dx + d[0], dy + d[1]]);
    } else if (e.shiftKey && !(node instanceof Konva.Group)) {
      node.setAttrs({
        width: Math.max(10, node.width() + d[0]),
        height: Math.max(10, node.height() + d[1]),
      });
    } else {
      node.position({ x: node.x() + d[0], y: node.y() + d[1] });
    }
    transformer.current?.forceUpdate();
    layer.current?.batchDraw();
  };

  const finish = () => {
    const st = stage.current;
    if (!st) return;
    select(null);
    st.toBlob({
      pixelRatio: 1 / scale.current,
      mimeType: 'image/png',
      callback: (blob) => {
        if (!blob) {
          setError('The annotated screenshot could not be made. Please try again.');
          return;
        }
        const name = `${file.name.replace(/\.[a-z0-9]+$/i, '') || 'screenshot'}-annotated.png`;
        onDone(new File([blob], name, { type: 'image/png' }));
      },
    });
  };

  return (
    <div className={styles.annotator} role="group" aria-label="Annotate the screenshot">
      <div className={styles.annotator__tools} role="radiogroup" aria-label="Drawing tool">
        {(Object.keys(TOOL_LABELS) as Tool[]).map((t) => (
          <label
            key={t}
            className={`${styles.annotator__tool}${tool === t ? ` ${styles['annotator__tool--on']}` : ''}`}
          >
            <input
              type="radio"
              name="annotator-tool"
              checked={tool === t}
              onChange={() => setTool(t)}
            />{' '}
            {TOOL_LABELS[t]}
          </label>
        ))}
      </div>
      {tool === 'note' ? (
        <label className={styles.annotator__note}>
          Note text (optional){' '}
          <input value={noteText} maxLength={80} onChange={(e) => setNoteText(e.target.value)} />
        </label>
      ) : null}
      <p className={`muted ${styles.annotator__help}`} id="annotator-help">
        Drag on the picture to draw, or press “Add {TOOL_LABELS[tool].toLowerCase()}”. On the
        picture: arrow keys move the selected mark, Shift+arrows resize it, Delete removes it. Blur
        hides e-mail addresses, names and card numbers: the original is never uploaded.
      </p>
      <button type="button" className={buttonClass('secondary', 'sm')} onClick={addInMiddle}>
        Add {TOOL_LABELS[tool].toLowerCase()}
      </button>
      {/* The canvas takes the keyboard when it has the focus (see the help above): a drawing surface. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions */}
      <div
        ref={host}
        className={styles.annotator__stage}
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a drawing surface (role application) is operated by keyboard
        tabIndex={0}
        role="application"
        aria-label="Screenshot being annotated"
        aria-describedby="annotator-help"
        onKeyDown={onKey}
      />
      <p className="muted" role="status">
        {count === 1 ? '1 mark' : `${count} marks`}
        {selected ? ` · selected: ${selected.replace(/^mark /, '')}` : ''}
      </p>
      {error ? (
        <p className="form-msg form-msg--error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="form__actions">
        <button type="button" className={buttonClass('ghost')} onClick={onCancel}>
          Cancel drawing
        </button>
        <button type="button" className={buttonClass('primary')} onClick={finish}>
          Use annotated screenshot
        </button>
      </div>
    </div>
  );
}
