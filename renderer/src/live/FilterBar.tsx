import { LOCAL_ERROR_CLASSES, UPSTREAM_ERROR_CLASSES } from '../../../proxy/contracts/errors.ts';
import { filterProblems, type FilterForm, type TimeWindow } from './filterForm.ts';

interface FilterBarProps {
  form: FilterForm;
  onChange: (form: FilterForm) => void;
}

const WINDOWS: { value: TimeWindow; label: string }[] = [
  { value: 'all', label: 'Any time' },
  { value: '15m', label: 'Last 15 minutes' },
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
];

export function FilterBar({ form, onChange }: FilterBarProps) {
  const set = <K extends keyof FilterForm>(key: K, value: FilterForm[K]) => onChange({ ...form, [key]: value });
  const problems = filterProblems(form);
  const problemText = Object.values(problems).join(' ');
  return (
    // biome-ignore lint/a11y/useSemanticElements: a form with role="search" is the landmark every screen reader knows; <search> is too new for some
    <form className="filter-bar" role="search" aria-label="Filter requests" onSubmit={(event) => event.preventDefault()}>
      <label>
        Search
        <input
          type="search"
          value={form.text}
          placeholder="text in bodies, paths, models"
          aria-invalid={problems.text ? true : undefined}
          aria-describedby={problems.text ? 'filter-problems' : undefined}
          onChange={(event) => set('text', event.target.value)}
        />
      </label>
      <label>
        Time
        <select value={form.window} onChange={(event) => set('window', event.target.value as TimeWindow)}>
          {WINDOWS.map((window) => (
            <option key={window.value} value={window.value}>
              {window.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Profile
        <input value={form.profileId} size={10} onChange={(event) => set('profileId', event.target.value)} />
      </label>
      <label>
        Model
        <input
          value={form.model}
          size={14}
          placeholder="id, or prefix*"
          aria-invalid={problems.model ? true : undefined}
          aria-describedby={problems.model ? 'filter-problems' : undefined}
          onChange={(event) => set('model', event.target.value)}
        />
      </label>
      <label>
        Client
        <input value={form.client} size={10} onChange={(event) => set('client', event.target.value)} />
      </label>
      <label>
        Status
        <input
          value={form.status}
          size={5}
          placeholder="ok, error, 429"
          aria-invalid={problems.status ? true : undefined}
          aria-describedby={problems.status ? 'filter-problems' : undefined}
          onChange={(event) => set('status', event.target.value)}
        />
      </label>
      <label>
        Error class
        <select value={form.errorClass} onChange={(event) => set('errorClass', event.target.value)}>
          <option value="">Any</option>
          {[...UPSTREAM_ERROR_CLASSES, ...LOCAL_ERROR_CLASSES].map((errorClass) => (
            <option key={errorClass} value={errorClass}>
              {errorClass}
            </option>
          ))}
        </select>
      </label>
      {form.path && (
        <button type="button" className="chip" aria-label={`Clear the endpoint filter ${form.path}`} onClick={() => set('path', '')}>
          Endpoint: {form.path} ✕
        </button>
      )}
      <p id="filter-problems" className="field-error filter-problems" role="alert">
        {problemText}
      </p>
    </form>
  );
}
