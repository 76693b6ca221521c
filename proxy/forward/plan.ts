import type { ClientProtocol, ProtocolMode } from '../contracts/usage.ts';
import type { ResponseTranslator } from '../protocols/adapter.ts';

/** Everything decided about one request before it goes upstream. */
export interface ExchangePlan {
  protocol: ClientProtocol;
  mode: ProtocolMode;
  method: string;
  upstreamPath: string;
  query: string;
  body: Buffer[] | null;
  byteLength: number;
  stream: boolean;
  requestedModel: string | null;
  upstreamModel: string | null;
  /** The usage-only chunk is kept from the client when Airlock asked for it on the client's behalf. */
  usageInjected: boolean;
  /** The Chat Completions body as sent, when parsed: for the budget and for estimating usage. */
  chatBody: Record<string, unknown> | null;
  dropAnthropicHeaders: boolean;
  translator: ResponseTranslator | null;
  /** What translation dropped or changed (unknown fields, unsupported tools), for the log. */
  notes: string[];
}
