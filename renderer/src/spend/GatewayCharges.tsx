import type { SpendDay } from '../../../proxy/contracts/spend.ts';
import { formatCredits, formatGatewayCharge } from '../common/format.ts';

/** Why the gateway's figures stand apart from the credits, under every view that shows them. */
export const GATEWAY_CHARGE_NOTE =
  "The gateway's charge is what the gateway itself stated (OpenRouter's credits, LiteLLM's USD), in its own unit and never added to Airlock's credits, which budgets count. A sum that leaves requests out is partial: it is not the bill.";

/** What a cell holds where several profiles' gateways stated charges, each in its own unit. */
export const MIXED_UNITS_TEXT = "several gateways' units: see Per profile";

/**
 * What the gateway said it charged, for a cell beside the credits: its sum, and how many answered
 * requests came without a statement, so a partial sum is never read as the bill.
 */
export function gatewayChargeText(charge: { gatewayCost: number | null; gatewayCostMixed: boolean; unstatedRequests: number }): string {
  const { gatewayCost, unstatedRequests } = charge;
  if (charge.gatewayCostMixed) return MIXED_UNITS_TEXT;
  const missing = unstatedRequests === 0 ? '' : `${unstatedRequests} request${unstatedRequests === 1 ? '' : 's'} without a statement`;
  if (gatewayCost === null) return missing === '' ? '—' : `none stated (${missing})`;
  return missing === '' ? formatGatewayCharge(gatewayCost) : `${formatGatewayCharge(gatewayCost)} (partial: ${missing})`;
}

/** Whether any of these rows had a charge stated by the gateway: only then are its figures shown. */
export function anyGatewayCharge(rows: readonly { gatewayCost: number | null; gatewayCostMixed: boolean }[]): boolean {
  return rows.some((row) => row.gatewayCost !== null || row.gatewayCostMixed);
}

/** Per day, Airlock's credits beside the gateway's own statement; nothing where the gateway stated no charge in the range. */
export function GatewayChargeByDay({ days }: { days: SpendDay[] }) {
  if (!anyGatewayCharge(days)) return null;
  return (
    <section className="spend-table gateway-charges">
      <h3>Per day, beside the gateway's statement</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Credits</th>
            <th scope="col">Gateway's charge (its unit)</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.day}>
              <th scope="row">{day.day}</th>
              <td>{formatCredits(Object.values(day.creditsByModel).reduce((sum, credits) => sum + credits, 0))}</td>
              <td>{gatewayChargeText(day)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">{GATEWAY_CHARGE_NOTE}</p>
    </section>
  );
}
