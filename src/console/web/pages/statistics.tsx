// Statistics (GET /statistics): recordings, events, errors and rage clicks over time (uPlot), totals,
// top pages, viewports; window, metadata and activity filters kept in the URL with the API's parameter names.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ActivityFields } from '../activity-fields';
import { ACTIVITY_PARAMS, activityForm, setActivityParams } from '../activity-filters';
import { recordingsOf } from '../statistics-links';
import { call, explain } from '../api';
import { bytes, duration } from '../format';
import { navigate, useLocation } from '../router';

interface Stats {
  from: number;
  to: number;
  interval: string;
  totals: { recordings: number; events: number; bytes: number; pageViews: number; duration: { avg: number; p50: number; p90: number } };
  series: { t: number; recordings: number; events: number }[];
  activity: {
    totals: ActivityCounts;
    series: ({ t: number } & ActivityCounts)[];
    topPages: { path: string; recordings: number }[];
  };
  viewports: { width: number; height: number; recordings: number }[];
}

interface ActivityCounts {
  errors: number;
  recordingsWithErrors: number;
  rageClicks: number;
  recordingsWithRageClicks: number;
}

const PASSED = new RegExp(`^(metadata\\[.+\\]|from|to|interval|${ACTIVITY_PARAMS.join('|')})$`);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The totals: name, value, and for a count of recordings, the link that lists them (and its title). */
function totals(stats: Stats, q: URLSearchParams): [string, string | number, [string | undefined, string]?][] {
  const t = stats.totals;
  const a = stats.activity.totals;
  return [
    ['Recordings', t.recordings, [recordingsOf(stats, q), 'List these recordings']],
    ['Events', t.events],
    ['Page views', t.pageViews],
    ['Stored', bytes(t.bytes)],
    ['Median duration', duration(t.duration.p50)],
    ['Errors', a.errors],
    ['Recordings with errors', a.recordingsWithErrors, [recordingsOf(stats, q, { hasErrors: 'true' }), 'List the recordings with errors']],
    ['Rage clicks', a.rageClicks, [recordingsOf(stats, q, { hasRageClicks: 'true' }), 'List the recordings with rage clicks']],
  ];
}

export function StatisticsPage() {
  const loc = useLocation();
  const q = new URLSearchParams();
  loc.query.forEach((v, k) => PASSED.test(k) && v && q.append(k, v));
  const qs = q.toString();
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState('');
  const [form, setForm] = useState({ from: loc.query.get('from') ?? '', to: loc.query.get('to') ?? '', meta: '', activity: activityForm(loc.query) });
  useEffect(() => {
    setError('');
    call<Stats>(`/statistics${qs ? `?${qs}` : ''}`).then(setStats, (e) => setError(explain(e)));
  }, [qs]);
  useEffect(() => {
    const meta: string[] = [];
    loc.query.forEach((v, k) => {
      const m = /^metadata\[(.+)\]$/.exec(k);
      if (m) meta.push(`${m[1]}=${v}`);
    });
    setForm({ from: loc.query.get('from') ?? '', to: loc.query.get('to') ?? '', meta: meta.join(', '), activity: activityForm(loc.query) });
  }, [qs]);

  const apply = (e: Event) => {
    e.preventDefault();
    const n = new URLSearchParams();
    if (form.from) n.set('from', form.from);
    if (form.to) n.set('to', form.to);
    for (const pair of form.meta.split(',')) {
      const i = pair.indexOf('=');
      if (i > 0) n.append(`metadata[${pair.slice(0, i).trim()}]`, pair.slice(i + 1).trim());
    }
    setActivityParams(n, form.activity);
    navigate(`/console/statistics${n.toString() ? `?${n}` : ''}`);
  };

  return (
    <section>
      <h1>Statistics</h1>
      <form class="filters" onSubmit={apply} aria-label="Statistics window and filters">
        <div class="row">
          <label>
            From <input type="date" value={form.from} onInput={(e) => setForm({ ...form, from: (e.target as HTMLInputElement).value })} />
          </label>
          <label>
            To <input type="date" value={form.to} onInput={(e) => setForm({ ...form, to: (e.target as HTMLInputElement).value })} />
          </label>
          <label class="grow">
            Metadata (key=value, comma-separated){' '}
            <input value={form.meta} placeholder="plan=pro" onInput={(e) => setForm({ ...form, meta: (e.target as HTMLInputElement).value })} />
          </label>
        </div>
        <details class="more" open={ACTIVITY_PARAMS.some((p) => loc.query.has(p))}>
          <summary>Activity filters</summary>
          <div class="filters-more">
            <ActivityFields value={form.activity} onChange={(activity) => setForm({ ...form, activity })} />
          </div>
        </details>
        <div class="actions">
          <button type="submit">Apply</button>
        </div>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!stats && !error && <p class="muted">Loading…</p>}
      {stats && (
        <>
          <p class="muted">
            {day(stats.from)} to {day(stats.to)}, by {stats.interval}
          </p>
          <dl class="totals">
            {totals(stats, q).map(([name, value, link]) => (
              <div>
                <dt>{name}</dt>
                <dd>
                  {typeof value === 'number' && value > 0 && link?.[0] ? (
                    <a href={link[0]} title={link[1]}>
                      {value}
                    </a>
                  ) : (
                    value
                  )}
                </dd>
              </div>
            ))}
          </dl>
          <Chart title="Recordings over time" series={stats.series} field="recordings" label="recordings" color="#2f6fde" />
          <Chart title="Events over time" series={stats.series} field="events" label="events" color="#1b8a5a" />
          <Chart title="Errors over time" series={stats.activity.series} field="errors" label="errors" color="#b3261e" />
          <Chart title="Rage clicks over time" series={stats.activity.series} field="rageClicks" label="rage clicks" color="#b06000" />
          <h2>Top pages</h2>
          {stats.activity.topPages.length === 0 ? (
            <p class="muted">No page views in this window.</p>
          ) : (
            <table class="grid">
              <caption class="sr-only">Top pages by recordings</caption>
              <thead>
                <tr>
                  <th scope="col">Path</th>
                  <th scope="col">Recordings</th>
                </tr>
              </thead>
              <tbody>
                {stats.activity.topPages.map((p) => {
                  const visited = recordingsOf(stats, q, { visitedPath: p.path });
                  return (
                    <tr>
                      <td>
                        {visited ? (
                          <a href={visited} title={`Recordings that visited ${p.path}`}>
                            {p.path}
                          </a>
                        ) : (
                          p.path
                        )}
                      </td>
                      <td>
                        <span class="bar" style={{ width: `${(100 * p.recordings) / stats.activity.topPages[0].recordings}%` }} />
                        {p.recordings}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          <h2>Viewports</h2>
          {stats.viewports.length === 0 ? (
            <p class="muted">No viewport recorded in this window.</p>
          ) : (
            <table class="grid">
              <caption class="sr-only">Viewport sizes by recordings</caption>
              <thead>
                <tr>
                  <th scope="col">Viewport (width × height)</th>
                  <th scope="col">Recordings</th>
                </tr>
              </thead>
              <tbody>
                {stats.viewports.map((v) => (
                  <tr>
                    <td>
                      {v.width} × {v.height}
                    </td>
                    <td>
                      <span class="bar" style={{ width: `${(100 * v.recordings) / stats.viewports[0].recordings}%` }} />
                      {v.recordings}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

/** One field of a series of buckets (`t`: bucket start, ms) as a uPlot line. */
function Chart<K extends string>(props: { title: string; series: ({ t: number } & Record<K, number>)[]; field: K; label: string; color: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [props.series.map((s) => s.t / 1000), props.series.map((s) => s[props.field])];
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 220,
        series: [{}, { label: props.label, stroke: props.color, fill: `${props.color}22`, width: 2 }],
        axes: [{}, { size: 60 }],
        legend: { show: false },
      },
      data,
      el,
    );
    const resize = () => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [props.series, props.field]);
  const total = props.series.reduce((n, s) => n + s[props.field], 0);
  return (
    <figure class="chart">
      <figcaption>
        {props.title} <span class="muted">({total} in all)</span>
      </figcaption>
      <div ref={box} role="img" aria-label={`${props.title}: ${total} in ${props.series.length} buckets`} />
    </figure>
  );
}
