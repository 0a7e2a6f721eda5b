import { useState } from 'react';
import type { PackCluster, PackView } from '@htm/contracts/jobs';
import { FINDING_SEVERITY_LABELS } from '@htm/contracts/findings';
import type { FindingRef, RegroupBody } from '@htm/contracts/summary';
import { BusyButton } from './busy-button';
import { buttonClass } from './button';
import styles from './agreement-list.module.css';

export const REGROUP_HINT =
  'Not grouped right? Tick the problems that are the same and merge them, or split a finding off its group. Your choice stays when reports come in or change.';

const refOf = (f: { submission_id: string; finding_index: number }): FindingRef => ({
  submission_id: f.submission_id,
  finding_index: f.finding_index,
});

/** A finding by report and place, as "submission:index". */
export const findingKeyOf = (f: { submission_id: string; finding_index: number }) =>
  `${f.submission_id}:${f.finding_index}`;

/**
 * The owner's merge / split of a pack's problems, shared by the "Fix first" list and the list of
 * the other findings under it: a problem is ticked by its first finding (stable while the lists
 * are read again), with the findings it groups.
 */
export interface Regroup {
  isTicked(key: string): boolean;
  tick(key: string, findings: FindingRef[], on: boolean): void;
  ticked: number;
  busy: string | null;
  merge(): void;
  split(finding: FindingRef, from: FindingRef[]): void;
}

export function useRegroup(onRegroup?: (body: RegroupBody) => Promise<boolean>): Regroup {
  const [ticked, setTicked] = useState<Array<{ key: string; findings: FindingRef[] }>>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (what: string, body: RegroupBody) => {
    if (!onRegroup) return;
    setBusy(what);
    const ok = await onRegroup(body);
    setBusy(null);
    if (ok && body.action === 'merge') setTicked([]);
  };
  return {
    isTicked: (key) => ticked.some((t) => t.key === key),
    tick: (key, findings, on) =>
      setTicked((t) => [...t.filter((x) => x.key !== key), ...(on ? [{ key, findings }] : [])]),
    ticked: ticked.length,
    busy,
    merge: () =>
      void run('merge', { action: 'merge', findings: ticked.flatMap((t) => t.findings) }),
    split: (finding, from) => void run(findingKeyOf(finding), { action: 'split', finding, from }),
  };
}

/** The hint and the "Merge ticked problems" button. */
export function RegroupBar({ regroup }: { regroup: Regroup }) {
  const n = regroup.ticked;
  return (
    <div className={styles.agreement__tools}>
      <p className="muted">{REGROUP_HINT}</p>
      <BusyButton
        className={buttonClass('secondary', 'sm')}
        onClick={regroup.merge}
        busy={regroup.busy === 'merge'}
        busyLabel="Merging…"
        disabled={n < 2 || regroup.busy !== null}
      >
        Merge {n >= 2 ? `${n} ticked problems` : 'ticked problems'} into one
      </BusyButton>
    </div>
  );
}

/** The tick of one problem (all its findings). */
export function RegroupTick({
  regroup,
  findings,
  label,
}: {
  regroup: Regroup;
  findings: FindingRef[];
  label: string;
}) {
  const key = findingKeyOf(findings[0]);
  return (
    <input
      type="checkbox"
      className={styles.agreement__tick}
      aria-label={`Tick to merge: ${label}`}
      checked={regroup.isTicked(key)}
      onChange={(e) => regroup.tick(key, findings, e.target.checked)}
    />
  );
}

/** "Not the same problem": one finding split off the others of its group. */
export function RegroupSplit({
  regroup,
  finding,
  from,
  text,
}: {
  regroup: Regroup;
  finding: FindingRef;
  from: FindingRef[];
  text: string;
}) {
  if (!from.length) return null;
  return (
    <BusyButton
      className={`${buttonClass('link', 'sm')} ${styles.agreement__split}`}
      aria-label={`Not the same problem: split “${text}” off`}
      busy={regroup.busy === findingKeyOf(finding)}
      busyLabel="Splitting…"
      disabled={regroup.busy !== null}
      onClick={() => regroup.split(finding, from)}
    >
      Not the same problem
    </BusyButton>
  );
}

/**
 * "What they agree on": a pack's findings grouped across its testers, most shared first (the
 * poster's pack card, and the example report). "n of N testers" counts as the pack's summary does:
 * N is the testers whose reports are in (`reported`). With `onRegroup` (the pack's owner) each
 * group can be ticked and merged with others, and a finding split off its group (POST
 * /api/packs/{id}/groups); `onRegroup` answers whether it worked. Under the pack's "Fix first",
 * `regroup` is shared with it and `except` names the findings it shows already: those groups are
 * not listed again.
 */
export function AgreementList({
  view,
  onRegroup,
  regroup: shared,
  except,
}: {
  view: Pick<PackView, 'pack' | 'reported' | 'clusters'>;
  onRegroup?: (body: RegroupBody) => Promise<boolean>;
  regroup?: Regroup;
  except?: ReadonlySet<string>;
}) {
  const own = useRegroup(onRegroup);
  const regroup = shared ?? (onRegroup ? own : null);
  const reporting = view.reported;
  const slots = view.pack.size - view.pack.closed;
  if (!view.clusters.length) {
    return (
      <p className="muted">No findings yet: they appear here as the testers submit their work.</p>
    );
  }
  // A group "Fix first" shows already (every finding of it there) is not listed twice.
  const shownAbove = (c: PackCluster) =>
    !!except?.size && c.findings.every((f) => except.has(findingKeyOf(f)));
  const clusters = view.clusters.filter((c) => !shownAbove(c));
  const rest = clusters.length < view.clusters.length;
  return (
    <div className="agreement">
      {rest && clusters.length ? <h4 className="agreement__title">More findings</h4> : null}
      <p className="muted">
        {reporting} of {slots} testers have reported. Findings that several testers wrote, in their
        own words, are grouped.
      </p>
      {regroup && !shared ? <RegroupBar regroup={regroup} /> : null}
      {rest && !clusters.length ? (
        <p className="muted">Every finding is in “Fix first” above.</p>
      ) : null}
      <ol className={styles.agreement__list}>
        {clusters.map((c) => (
          <li
            key={findingKeyOf(c.findings[0])}
            className={`${styles.agreement__item}${c.count > 1 ? ` ${styles['agreement__item--shared']}` : ''}`}
          >
            <div className={styles.agreement__head}>
              {regroup ? (
                <RegroupTick regroup={regroup} findings={c.findings.map(refOf)} label={c.summary} />
              ) : null}
              <p className={styles.agreement__summary}>
                <strong>
                  {c.count} of {reporting} testers:
                </strong>{' '}
                <span dir="auto">{c.summary}</span>
              </p>
            </div>
            {c.findings.length > 1 ? (
              <details className="agreement__words">
                <summary>In their words ({c.findings.length} findings)</summary>
                <ul className={styles.agreement__findings}>
                  {c.findings.map((f) => (
                    <li key={findingKeyOf(f)}>
                      <span dir="auto">“{f.text}”</span>
                      {f.severity ? (
                        <span className="muted"> · {FINDING_SEVERITY_LABELS[f.severity]}</span>
                      ) : null}
                      {regroup ? (
                        <RegroupSplit
                          regroup={regroup}
                          finding={refOf(f)}
                          from={c.findings.filter((o) => o !== f).map(refOf)}
                          text={f.text}
                        />
                      ) : null}
                    </li>
                  ))}
                </ul>
              </details>
            ) : c.findings[0]?.severity ? (
              <p className={`muted ${styles.agreement__severity}`}>
                {FINDING_SEVERITY_LABELS[c.findings[0].severity]}
              </p>
            ) : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
