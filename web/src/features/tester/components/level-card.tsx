import { hasPriorityAccess, TESTER_LEVEL_LABELS } from '@htm/contracts/marketplace';
import { Stat } from '../../../components/stat';
import { useGetStandingQuery } from '../api/get-standing';
import { badgeClass } from '../../../components/badge';
import stat from '../../../components/stat.module.css';
import panel from '../../../components/panel.module.css';

/**
 * The tester's level (New, Trusted, Top) with jobs completed, acceptance rate and average rating,
 * and what the next level still needs (GET /api/tester/standing; the rules module's testerLevel).
 */
export function LevelCard() {
  const { data } = useGetStandingQuery();
  // Nothing until the jobs service answers with a level it knows.
  if (!data || !(data.level in TESTER_LEVEL_LABELS)) return null;
  const label = TESTER_LEVEL_LABELS[data.level];
  return (
    <section className={`${panel.panel} level-card`} aria-labelledby="level-card-title">
      <h2 id="level-card-title">
        Your level: <span className={badgeClass(`level-${data.level}`)}>{label}</span>
      </h2>
      <ul className={stat.stats} aria-label="Your record">
        <Stat value={data.jobs_completed} label="Jobs completed" />
        <Stat
          value={data.acceptance_rate_pct == null ? '—' : `${data.acceptance_rate_pct}%`}
          label="Acceptance rate"
        />
        <Stat
          value={data.rating_avg == null ? '—' : `${data.rating_avg.toFixed(1)} ★`}
          label={`Average rating (${data.rating_count} rating${data.rating_count === 1 ? '' : 's'})`}
        />
      </ul>
      {data.priority_access ? (
        <p className="muted">
          As a {label} tester you see newly paid jobs first, before everyone else.
        </p>
      ) : null}
      {data.next_level ? (
        <div>
          <p>
            To reach {TESTER_LEVEL_LABELS[data.next_level.level]}
            {hasPriorityAccess(data.next_level.level) ? ' (and see newly paid jobs first)' : ''},
            you need:
          </p>
          <ul>
            {data.next_level.needs.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
