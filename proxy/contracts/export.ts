import type { SpendGroupBy } from './log.ts';

/**
 * Downloads of the request log and spend (GET /export/requests, GET /export/spend) and the trace
 * export setting (GET/PUT /settings/trace-export, PUT/DELETE /settings/trace-export/headers).
 * Shared by the control API and the window.
 */

export const REQUEST_EXPORT_FORMATS = ['har', 'csv'] as const;
export type RequestExportFormat = (typeof REQUEST_EXPORT_FORMATS)[number];

/** Spend is exported per day and per model, profile or client (null: one row per day). */
export const SPEND_EXPORT_GROUPS = ['model', 'profile', 'client', 'none'] as const;
export type SpendExportGroup = (typeof SPEND_EXPORT_GROUPS)[number];

export function spendGroupByOf(group: SpendExportGroup): SpendGroupBy {
  return group === 'none' ? null : group;
}

export type { TraceExportHeaderView, TraceExportHeaderWrite, TraceExportView } from './traceHeaders.ts';
