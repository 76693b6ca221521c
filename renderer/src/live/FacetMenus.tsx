import { memo } from 'react';
import type { FacetValue, RequestFacets } from '../../../proxy/contracts/requestFacets.ts';
import type { FacetDimension } from '../../../proxy/contracts/log.ts';
import type { FilterForm } from './filterForm.ts';
import { endpointLabel } from './RequestRow.tsx';

const MENUS: { dimension: FacetDimension; title: string; field: keyof FilterForm; words?: (value: FacetValue) => string }[] = [
  { dimension: 'status', title: 'Status', field: 'status' },
  { dimension: 'errorClass', title: 'Error', field: 'errorClass', words: (value) => `${value.label} (${value.value})` },
  { dimension: 'model', title: 'Model', field: 'model' },
  { dimension: 'client', title: 'Client', field: 'client' },
  { dimension: 'profile', title: 'Profile', field: 'profileId' },
  { dimension: 'endpoint', title: 'Endpoint', field: 'path', words: (value) => `${endpointLabel(value.value)} (${value.value})` },
];

/**
 * What the listed requests hold, per dimension, with counts: open a menu and pick a value to
 * filter by it. Values already chosen show as pressed; picking one again clears it. Memoised: the
 * Live screen renders at each stream frame, and the menus hold up to 180 values.
 */
export const FacetMenus = memo(function FacetMenus({
  facets,
  form,
  onPick,
}: {
  facets: RequestFacets;
  form: FilterForm;
  onPick: (field: keyof FilterForm, value: string) => void;
}) {
  return (
    <nav className="facets" aria-label="Facets">
      {MENUS.map(({ dimension, title, field, words }) => {
        const values = facets[dimension];
        return (
          <details key={dimension} className="facet">
            <summary>
              {title} <span className="muted">({values.length})</span>
            </summary>
            {values.length === 0 ? (
              <p className="muted">None among these requests.</p>
            ) : (
              <ul>
                {values.map((value) => {
                  const chosen = form[field] === value.value;
                  return (
                    <li key={value.value}>
                      <button type="button" aria-pressed={chosen} onClick={() => onPick(field, chosen ? '' : value.value)}>
                        <span>{words ? words(value) : value.label}</span>{' '}
                        <span className="facet-count">{value.count.toLocaleString()}</span>
                      </button>
                    </li>
                  );
                })}
              </ul>
            )}
          </details>
        );
      })}
    </nav>
  );
});
