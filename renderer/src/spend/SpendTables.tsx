import { BUDGET_REFUSAL_STATUS, type BudgetProgress, type SpendRow } from '../../../proxy/contracts/spend.ts';
import { formatCredits, formatTokens, showInvisible } from '../common/format.ts';
import { anyGatewayCharge, gatewayChargeText } from './GatewayCharges.tsx';

export function SpendTable({ title, keyLabel, rows }: { title: string; keyLabel: string; rows: SpendRow[] }) {
  // The gateway's own figures only where it stated any: most gateways state none.
  const stated = anyGatewayCharge(rows);
  return (
    <section className="spend-table">
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="muted">Nothing in this range.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{keyLabel}</th>
              <th scope="col">Requests</th>
              <th scope="col">Tokens in</th>
              <th scope="col">Tokens out</th>
              <th scope="col">Credits</th>
              {stated && <th scope="col">Gateway's charge (its unit)</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{showInvisible(row.key)}</th>
                <td>{row.requests}</td>
                <td>{formatTokens(row.inputTokens)}</td>
                <td>{formatTokens(row.outputTokens)}</td>
                <td>
                  {formatCredits(row.costCredits)}
                  {row.unpricedRequests > 0 && (
                    <span className="muted">
                      {' '}
                      (+{row.unpricedRequests} unpriced: <a href="#/profiles">set prices</a>)
                    </span>
                  )}
                </td>
                {stated && <td>{gatewayChargeText(row)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function BudgetList({ budgets }: { budgets: BudgetProgress[] }) {
  return (
    <section className="budgets">
      <h3>Budgets</h3>
      {budgets.length === 0 ? (
        <p className="muted">No budgets set. Set daily or monthly caps on a profile (Profiles) to stop a runaway agent.</p>
      ) : (
        <ul>
          {budgets.map((budget) => {
            const label = `${budget.scope} ${budget.subject}, ${budget.period}`;
            return (
              <li key={`${budget.scope}:${budget.subject}:${budget.period}`} className={budget.reached ? 'reached' : undefined}>
                <span>
                  {label}: {formatCredits(budget.spentCredits)} of {formatCredits(budget.capCredits)} credits
                </span>
                <meter
                  aria-label={label}
                  min={0}
                  max={budget.capCredits}
                  high={budget.capCredits * 0.8}
                  value={Math.min(budget.spentCredits, budget.capCredits)}
                />
                {budget.reached && (
                  <strong className="warn">
                    Cap reached: new requests get {BUDGET_REFUSAL_STATUS} from Airlock and reach nothing upstream until the period ends or
                    the cap is raised.
                  </strong>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p className="muted">
        At a cap, Airlock refuses the request locally with {BUDGET_REFUSAL_STATUS} and a message that names the cap; nothing is sent to the
        gateway.
      </p>
    </section>
  );
}
