import type { FacetDimension } from './log.ts';

/** One value of a facet: `label` says it in words (an error class's title, an endpoint's kind). */
export interface FacetValue {
  value: string;
  label: string;
  count: number;
}

/** GET /requests/facets?…filters — what the matching requests hold, with counts, for the filter menus. */
export type RequestFacets = Record<FacetDimension, FacetValue[]>;
