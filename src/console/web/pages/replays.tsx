// Replays: recordings grouped by a metadata property (GET /replays/{prop}); a replay opens in the
// hosted player with the composed replay's events (any of its recordings names the player page).
import { useEffect, useState } from 'preact/hooks';
import { call, enc, explain } from '../api';
import { duration, when } from '../format';
import { navigate, useLocation } from '../router';

interface Replay {
  groupingProp: string;
  replayValue: string;
  recordings: number;
  startedAt: number;
  endedAt: number;
  duration: number;
}

export function ReplaysPage() {
  const loc = useLocation();
  const by = loc.query.get('by') ?? '';
  const open = loc.query.get('value');
  const [prop, setProp] = useState(by);
  const [list, setList] = useState<Replay[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => setProp(by), [by]);
  useEffect(() => {
    setList(null);
    setError('');
    if (!by) return;
    call<{ replays: Replay[] }>(`/replays/${enc(by)}?limit=100`).then(
      (r) => setList(r.replays),
      (e) => setError(explain(e)),
    );
  }, [by]);

  return (
    <section>
      <h1>Replays</h1>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/console/replays?by=${enc(prop.trim())}`);
        }}
      >
        <label>
          Group recordings by metadata property{' '}
          <input required value={prop} placeholder="sessionId" onInput={(e) => setProp((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Show replays</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!by && <p class="muted">A replay joins every recording that shares a metadata value (a session, a user) into one, in time order.</p>}
      {by && !list && !error && <p class="muted">Loading…</p>}
      {list && list.length === 0 && <p class="empty">No recording has the metadata property “{by}”.</p>}
      {open && <ReplayPlayer prop={by} value={open} />}
      {list && list.length > 0 && (
        <table class="grid">
          <caption class="sr-only">Replays by {by}</caption>
          <thead>
            <tr>
              <th scope="col">{by}</th>
              <th scope="col">Recordings</th>
              <th scope="col">Started</th>
              <th scope="col">Span</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr>
                <td>
                  <a href={`/console/replays?by=${enc(by)}&value=${enc(r.replayValue)}`}>{r.replayValue}</a>
                </td>
                <td>
                  <a href={`/console/recordings?${new URLSearchParams({ [`metadata[${by}]`]: r.replayValue })}`}>{r.recordings}</a>
                </td>
                <td>{when(r.startedAt)}</td>
                <td>{duration(r.duration)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ReplayPlayer({ prop, value }: { prop: string; value: string }) {
  const [src, setSrc] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    setSrc('');
    call<{ recordings: { recordingId: string }[] }>(`/recordings?limit=1&${new URLSearchParams({ [`metadata[${prop}]`]: value })}`).then(
      (r) => {
        const first = r.recordings[0];
        if (!first) return setError('This replay has no recording any more.');
        setSrc(`/recordings/${enc(first.recordingId)}/player.html?eventsUrl=${enc(`/replays/${enc(prop)}/${enc(value)}/events`)}`);
      },
      (e) => setError(explain(e)),
    );
  }, [prop, value]);
  return (
    <div class="player replay">
      <h2>
        Replay {prop} = {value}
      </h2>
      {error && <p class="error">{error}</p>}
      {src && <iframe title={`Replay ${prop} = ${value}`} src={src} />}
    </div>
  );
}
