import type { RequestLifecycleEvent } from '../contracts/lifecycle.ts';
import type { TokenUsage } from '../contracts/usage.ts';
import type { ProfileSpend } from '../contracts/log.ts';

/** What a request's `start` event says beyond the ids the trace assigns itself. */
export type TraceStart = Omit<Extract<RequestLifecycleEvent, { type: 'start' }>, 'type' | 'requestId' | 'startedAtMs'>;

/** What settle tells the trace of the request's usage and price when it ends. */
export interface TraceAccounting {
  usage: TokenUsage | null;
  usageSource: 'reported' | 'estimated' | null;
  costCredits: number | null;
  /** Said on the row beside the cost: attempts the gateway may bill that no answer priced (unstatedRuns.ts). */
  note?: string;
  /** Of `costCredits`, what runs on profiles a fallback left may be billed: their spend, not the answering profile's. */
  leftSpend?: readonly ProfileSpend[];
}
