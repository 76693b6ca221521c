import type { Alarm, StatusResponse } from '../../contracts/status.ts';
import type { BudgetProgress } from '../../contracts/spend.ts';
import { formatCredits } from '../../contracts/amounts.ts';
import { redactKnownSecrets } from '../../core/redact.ts';
import { startOfLocalDayMs } from '../../core/localPeriods.ts';
import { isDamageError, RESTART_FOR_DAMAGED_LOG } from '../../store/logCheck.ts';
import { capsProgress, ledgerBudgetProgress } from './budgets.ts';
import type { ControlDeps, ProxyControl } from './deps.ts';
import { moneyOf } from './mapping.ts';

export interface StatusInputs {
  deps: ControlDeps;
  proxy: ProxyControl | null;
  keyRejectedProfiles: readonly string[];
  quotaExhaustedProfiles?: readonly string[];
  nowMs: number;
}

function budgetWarningMessage(budget: BudgetProgress): string {
  const period = budget.period === 'daily' ? 'today' : 'this month';
  return `${budget.scope === 'profile' ? 'Profile' : 'Client'} ${budget.subject} has used ${budget.alertPercent}% of its ${budget.period} budget (${formatCredits(budget.spentCredits)} of ${formatCredits(budget.capCredits)} credits ${period}); at the cap its requests are refused.`;
}

/** A file the schema refuses is never half-applied (DESIGN.md, "airlock.json is never half-read"). */
const LAST_GOOD_SETTINGS = 'Until then Airlock keeps using the settings it last read, and saves nothing.';

type LogSpend =
  | { todayCredits: number; budgets: BudgetProgress[] }
  | { todayCredits: number; budgets: BudgetProgress[]; unreadable: string };

/**
 * Today's spend as the log holds it, and the budgets' progress from the ledger the spend gate
 * refuses by (capsProgress): the status is built for every live frame, 10 a second while requests
 * run with the window open, on the forwarding thread. Today's total stays a log read, of today's
 * rows only: it is how the window learns the log cannot be read. A log that cannot be read (a page
 * damaged under the running proxy) failed the whole status, and the window showed none of its
 * alarms and notices, the one saying so among them: today's spend then comes from the ledger too.
 * Only damage is called damage: another error (a busy database, a bug) is named as it is, and a
 * restart is not promised to mend it.
 */
function readLogSpend(deps: ControlDeps, config: ReturnType<ControlDeps['config']['snapshot']>, nowMs: number): LogSpend {
  const ledger = deps.spendGate?.ledger;
  try {
    const todayCredits = deps.log.spendSince({ sinceMs: startOfLocalDayMs(nowMs) });
    return { todayCredits, budgets: capsProgress(config, ledger, deps.log.spendSince, nowMs) };
  } catch (error) {
    const todayCredits = config.profiles.reduce(
      (sum, profile) => sum + (ledger?.totals({ kind: 'profile', profileId: profile.id }, nowMs).dayCredits ?? 0),
      0,
    );
    const cause = error instanceof Error ? error.message : String(error);
    const counted = 'the spend shown is what Airlock counted as requests ended, and forwarding goes on.';
    return {
      todayCredits,
      budgets: ledger === undefined ? [] : ledgerBudgetProgress(config, ledger, nowMs),
      unreadable: isDamageError(error)
        ? `The request log cannot be read (${cause}): ${counted} ${RESTART_FOR_DAMAGED_LOG}.`
        : `The request log cannot be read (${cause}): ${counted}`,
    };
  }
}

/** The status bar's content, and the alarms a user must see without looking for them. */
export function buildStatus({ deps, proxy, keyRejectedProfiles, quotaExhaustedProfiles = [], nowMs }: StatusInputs): StatusResponse {
  const config = deps.config.snapshot();
  const active = config.profiles.find((profile) => profile.id === config.activeProfileId) ?? null;
  const alarms: Alarm[] = [...(deps.startupAlarms ?? [])];
  const logRead = readLogSpend(deps, config, nowMs);

  for (const budget of logRead.budgets) {
    if (budget.alertPercent === null) continue;
    const subject = budget.scope === 'profile' ? { profileId: budget.subject } : { clientName: budget.subject };
    if (!budget.reached) {
      alarms.push({ kind: 'budget_warning', message: budgetWarningMessage(budget), ...subject });
      continue;
    }
    alarms.push({
      kind: 'budget_reached',
      message: `The ${budget.period} budget of ${budget.scope} ${budget.subject} (${budget.capCredits} credits) is reached: its requests are refused until the period ends or the cap is raised.`,
      ...subject,
    });
  }
  for (const profileId of keyRejectedProfiles) {
    alarms.push({
      kind: 'key_rejected',
      profileId,
      message: `The gateway rejected the key of profile ${profileId}: set it again under Profiles.`,
    });
  }
  for (const profileId of quotaExhaustedProfiles) {
    alarms.push({
      kind: 'quota_exhausted',
      profileId,
      message: `The gateway account of profile ${profileId} has no balance or quota left: top it up in the gateway console. Until then every request fails.`,
    });
  }
  for (const pause of deps.spendGate?.pausedClients() ?? []) {
    alarms.push({ kind: 'client_paused', clientName: pause.clientName, message: `Client ${pause.clientName} is paused: ${pause.reason}` });
  }
  const logStatus = deps.log.status();
  // One alarm of the kind: the window keys its alarms by kind.
  const logProblems = ['unreadable' in logRead ? logRead.unreadable : null, logStatus.reason].filter((problem) => problem !== null);
  if (logProblems.length > 0) alarms.push({ kind: 'log_degraded', message: logProblems.join(' ') });
  if (logStatus.ledgerGap !== null) {
    alarms.push({
      kind: 'ledger_incomplete',
      message: `Requests of profiles and clients with a daily or monthly cap are refused: ${logStatus.ledgerGap.reason}`,
    });
  }
  if (!config.settings.requireClientToken) {
    alarms.push({ kind: 'auth_disabled', message: 'Client tokens are turned off: any program on this machine can spend through Airlock.' });
  }
  const fileProblem = deps.config.problem();
  if (fileProblem) alarms.push({ kind: 'config_invalid', message: `${fileProblem} ${LAST_GOOD_SETTINGS}` });
  const keychainProblem = deps.keys.keychainProblem();
  if (keychainProblem) alarms.push({ kind: 'keychain_unavailable', message: keychainProblem });

  // Alarm messages name files of the data directory, whose path may hold a key.
  const secrets = deps.knownSecrets?.() ?? [];
  return {
    proxyUrl: proxy?.url ?? '',
    paused: proxy?.isPaused() ?? false,
    inFlight: proxy?.inFlightCount() ?? 0,
    activeProfile: active ? { id: active.id, name: active.name, key: deps.keys.keyStatus(active.id, active.keyPool) } : null,
    todaySpend: moneyOf(logRead.todayCredits),
    alarms: alarms.map((alarm) => ({ ...alarm, message: redactKnownSecrets(alarm.message, secrets) })),
    // An alarm that shows the same problem as it stands now says it already.
    notices: (deps.notices?.list() ?? []).filter((notice) => !alarms.some((alarm) => alarm.kind === notice.kind)),
    firstRun: {
      hasProfile: config.profiles.length > 0,
      // A key the keychain has not given yet is probably stored: the first-run steps do not ask for it again.
      hasKey: config.profiles.some((profile) => {
        const key = deps.keys.keyStatus(profile.id, profile.keyPool);
        return key.set || key.unread === true;
      }),
      hasClientToken: config.clientTokens.length > 0 || !config.settings.requireClientToken,
    },
  };
}
