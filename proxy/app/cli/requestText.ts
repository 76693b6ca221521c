import { formatCredits, formatGatewayCharge } from '../../contracts/amounts.ts';
import type { RequestLogRow } from '../../contracts/log.ts';
import { gatewayKeysText, hopText } from '../export/chainText.ts';
import { durationText } from '../sessions/timelineText.ts';

/** One logged request as plain text for `airlock request <id>`. Pure: times in UTC, so output does not depend on the machine. */

const utc = (epochMs: number): string => `${new Date(epochMs).toISOString().replace('T', ' ').slice(0, 19)} UTC`;

function statusText(row: RequestLogRow): string {
  if (row.state === 'in_flight') return 'still running';
  if (row.state === 'interrupted') return 'interrupted: Airlock stopped before it ended';
  const status = row.status === null ? 'no answer' : String(row.status);
  return row.errorClass === null ? status : `${status} ${row.errorClass}${row.errorMessage ? `: ${row.errorMessage}` : ''}`;
}

/** What was asked, what was sent, what answered, when they differ. */
function modelText(row: RequestLogRow): string {
  const names = [row.requestedModel, row.upstreamModel, row.responseModel].filter((name): name is string => name !== null);
  const distinct = names.filter((name, index) => names.indexOf(name) === index);
  return distinct.length === 0 ? '—' : distinct.join(' → ');
}

function costText(row: RequestLogRow): string {
  if (row.costCredits === null) return 'unpriced';
  return `${formatCredits(row.costCredits)} credits${row.usageSource === 'estimated' ? ' (tokens estimated)' : ''}`;
}

function field(name: string, value: string): string {
  return `${`${name}:`.padEnd(11)} ${value}`;
}

export function requestText(row: RequestLogRow, replayIds: readonly string[], hint: (args: string) => string): string[] {
  const lines = [
    `${row.id}  ${utc(row.startedAtMs)}  ${row.method} ${row.clientPath}`,
    field('Status', statusText(row)),
    field('Model', modelText(row)),
    field('Profile', row.profileId ?? '—'),
    field('Client', row.clientName ?? '—'),
    field('Duration', `${durationText(row.durationMs)}${row.ttfbMs === null ? '' : ` (first byte ${durationText(row.ttfbMs)})`}`),
    field('Cost', costText(row)),
    ...(row.gatewayCost === undefined
      ? []
      : [field('Charged', `${formatGatewayCharge(row.gatewayCost)} as the gateway stated it, in its own unit (budgets count the cost)`)]),
    field('Retries', String(row.retries)),
  ];
  if (row.fallbackChain) {
    lines.push('Fallback:');
    for (const [index, hop] of row.fallbackChain.entries()) lines.push(`  ${index + 1}. ${hopText(hop)}`);
  }
  if (row.gatewayKeys) lines.push(field('Keys', gatewayKeysText(row.gatewayKeys)));
  if (row.agentSessionId) lines.push(field('Session', `${row.agentSessionId} (${hint(`sessions ${row.agentSessionId}`)})`));
  if (row.replayOf) lines.push(field('Replay of', `${row.replayOf} (${hint(`request ${row.replayOf}`)})`));
  if (replayIds.length > 0) lines.push(field('Replays', replayIds.join(', ')));
  // What the log says of the request beyond its figures: a cost the gateway may bill with no usage stated, say.
  for (const note of row.notes) lines.push(field('Note', note));
  return lines;
}
