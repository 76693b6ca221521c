import { addGatewayCosts, joinGatewayCostProfiles } from '../../contracts/amounts.ts';
import { emptySpendGroup, type SpendByDayRow, type SpendGroupBy } from '../../contracts/log.ts';

const GROUP_NOUNS: Record<Exclude<SpendGroupBy, null>, string> = {
  model: 'models',
  profile: 'profiles',
  client: 'clients',
  session: 'sessions',
};

/** The group the folded groups' rows are summed under, saying how many it holds. */
export function otherGroupsKey(groupBy: Exclude<SpendGroupBy, null>, count: number): string {
  return `(${count.toLocaleString('en-US')} other ${GROUP_NOUNS[groupBy]})`;
}

/**
 * Per-day spend rows of the `maxGroups` groups that cost most over the whole span (then most
 * requests), and the rest summed into one group a day (otherGroupsKey). A script's one-shot
 * requests can each be a session of its own: 100 000 of them made the Spend screen's answer 19 MB
 * and a table no one reads, received and summed on the forwarding thread. The ungrouped row (no
 * session, an unknown client) is always kept: it is one group, not many.
 */
export function foldSmallGroups(rows: readonly SpendByDayRow[], groupBy: Exclude<SpendGroupBy, null>, maxGroups: number): SpendByDayRow[] {
  const sizes = new Map<string, { costCredits: number; requests: number }>();
  for (const row of rows) {
    if (row.group === null) continue;
    const size = sizes.get(row.group) ?? { costCredits: 0, requests: 0 };
    size.costCredits += row.costCredits;
    size.requests += row.requests;
    sizes.set(row.group, size);
  }
  if (sizes.size <= maxGroups) return [...rows];
  const kept = new Set(
    [...sizes]
      .sort(([groupA, a], [groupB, b]) => b.costCredits - a.costCredits || b.requests - a.requests || groupA.localeCompare(groupB))
      .slice(0, maxGroups)
      .map(([group]) => group),
  );
  const othersKey = otherGroupsKey(groupBy, sizes.size - maxGroups);
  const othersByDay = new Map<string, SpendByDayRow>();
  const folded: SpendByDayRow[] = [];
  for (const row of rows) {
    if (row.group === null || kept.has(row.group)) {
      folded.push(row);
      continue;
    }
    let others = othersByDay.get(row.day);
    if (others === undefined) {
      others = emptySpendGroup(row.day, othersKey);
      othersByDay.set(row.day, others);
      folded.push(others);
    }
    others.requests += row.requests;
    others.costCredits += row.costCredits;
    others.unpricedRequests += row.unpricedRequests;
    others.inputTokens += row.inputTokens;
    others.outputTokens += row.outputTokens;
    others.gatewayCost = addGatewayCosts(others.gatewayCost, row.gatewayCost);
    others.gatewayCostProfiles = joinGatewayCostProfiles(others.gatewayCostProfiles, row.gatewayCostProfiles);
    others.unstatedRequests += row.unstatedRequests;
  }
  return folded;
}
