// The activity filters' fields of the console's filter forms (recordings, statistics): the values
// and their URL parameters are activity-filters.ts's.
import { ActivityForm, Tri, VISITED, VisitedParam } from './activity-filters';

const TRI_LABELS: Record<'errors' | 'clicks', [string, string, string]> = {
  errors: ['Any', 'With errors', 'Without errors'],
  clicks: ['Any', 'Some', 'None'],
};

function TriSelect(props: { label: string; value: Tri; kind: keyof typeof TRI_LABELS; onChange: (v: Tri) => void }) {
  const [any, yes, no] = TRI_LABELS[props.kind];
  return (
    <label>
      {props.label} {/* Named by aria-label: a label's own text would include the chosen option's. */}
      <select aria-label={props.label} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as Tri)}>
        <option value="">{any}</option>
        <option value="true">{yes}</option>
        <option value="false">{no}</option>
      </select>
    </label>
  );
}

/** The activity filters' fields of a filter form ("What happened"). */
export function ActivityFields(props: { value: ActivityForm; onChange: (f: ActivityForm) => void }) {
  const f = props.value;
  const set = (changes: Partial<ActivityForm>) => props.onChange({ ...f, ...changes });
  const input = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <>
      <fieldset>
        <legend>Visited page</legend>
        <div class="row">
          <label>
            <select
              aria-label="Visited page match"
              value={f.visitedHow}
              onChange={(e) => set({ visitedHow: (e.target as HTMLSelectElement).value as VisitedParam })}
            >
              {VISITED.map(([p, label]) => (
                <option value={p}>{label}</option>
              ))}
            </select>
          </label>
          <label>
            <span class="sr-only">Visited page</span>
            <input placeholder="/checkout" value={f.visited} onInput={(e) => set({ visited: input(e) })} />
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>What happened</legend>
        <div class="row">
          <label>
            Clicked text contains <input value={f.clickedText} onInput={(e) => set({ clickedText: input(e) })} />
          </label>
          <TriSelect label="Errors" kind="errors" value={f.errors} onChange={(errors) => set({ errors })} />
          <label>
            Error message contains <input value={f.errorText} onInput={(e) => set({ errorText: input(e) })} />
          </label>
          <TriSelect label="Rage clicks" kind="clicks" value={f.rage} onChange={(rage) => set({ rage })} />
          <TriSelect label="Dead clicks" kind="clicks" value={f.dead} onChange={(dead) => set({ dead })} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Active time (seconds)</legend>
        <div class="row">
          <SecondsInput label="Minimum" of="active time" value={f.minActive} onInput={(minActive) => set({ minActive })} />
          <SecondsInput label="Maximum" of="active time" value={f.maxActive} onInput={(maxActive) => set({ maxActive })} />
        </div>
      </fieldset>
    </>
  );
}

/** A time bound of the filters, in seconds (decimals allowed, never negative); `of`: what it bounds, for screen readers only. */
export function SecondsInput(props: { label: string; of?: string; value: string; onInput: (value: string) => void }) {
  return (
    <label>
      {props.label}
      {props.of && <span class="sr-only"> {props.of}</span>}{' '}
      <input type="number" min="0" step="any" inputMode="decimal" value={props.value} onInput={(e) => props.onInput((e.target as HTMLInputElement).value)} />
    </label>
  );
}
