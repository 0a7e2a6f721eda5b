/**
 * What a set of objects costs, from two V8 heap snapshots: self sizes summed by kind (constructor
 * name for objects, "(string)", "(closure) name", ...), after minus before, per unit (an open
 * stream, say). Used with bench/live-scale.ts's LIVE_SCALE_HEAP to see what an open stream holds.
 *
 *   node bench/heap-diff.mjs <before.heapsnapshot> <after.heapsnapshot> [units] [rows]
 */
import { readFileSync } from 'node:fs';

function totals(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields: fields, node_types: types } = snap.snapshot.meta;
  const width = fields.length;
  const typeNames = types[0];
  const at = (f) => fields.indexOf(f);
  const [iType, iName, iSize] = [at('type'), at('name'), at('self_size')];
  const out = new Map();
  const { nodes, strings } = snap;
  for (let i = 0; i < nodes.length; i += width) {
    const type = typeNames[nodes[i + iType]];
    const name = strings[nodes[i + iName]];
    const key =
      type === 'object' || type === 'native'
        ? name
        : type === 'closure'
          ? `(closure) ${name || 'anonymous'}`
          : `(${type})`;
    const t = out.get(key) ?? { count: 0, bytes: 0 };
    t.count += 1;
    t.bytes += nodes[i + iSize];
    out.set(key, t);
  }
  return out;
}

const [before, after, units = '1', rows = '30'] = process.argv.slice(2);
if (!before || !after) {
  console.error('usage: node bench/heap-diff.mjs <before> <after> [units] [rows]');
  process.exit(2);
}
const a = totals(before);
const b = totals(after);
const n = Number(units);
const diff = [...new Set([...a.keys(), ...b.keys()])].map((k) => {
  const x = a.get(k) ?? { count: 0, bytes: 0 };
  const y = b.get(k) ?? { count: 0, bytes: 0 };
  return { kind: k, count: (y.count - x.count) / n, bytes: (y.bytes - x.bytes) / n };
});
diff.sort((p, q) => q.bytes - p.bytes);
const sum = diff.reduce((s, d) => s + d.bytes, 0);
console.log(`heap growth per unit: ${(sum / 1024).toFixed(2)} KB (${n} units)`);
for (const d of diff.slice(0, Number(rows)))
  console.log(
    `${d.bytes.toFixed(0).padStart(8)} B  ${d.count.toFixed(2).padStart(7)} x  ${d.kind}`,
  );
