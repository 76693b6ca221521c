import type { UpstreamErrorClass } from '../contracts/errors.ts';
import type { ClientErrorDetail } from '../core/clientError.ts';
import type { DeclaredError, ProtocolAdapter } from '../protocols/adapter.ts';
import { declaredErrorClass, declaredErrorSaid, declaredFailureMessage, type DeclaredErrorPlace } from '../protocols/declaredError.ts';
import { adapterNamed, routeFor, type ProtocolRoute } from '../protocols/registry.ts';
import type { ExchangePlan } from './plan.ts';
import type { RelayInput } from './relay.ts';

/** The protocols of one relayed exchange: what the gateway speaks and what the client speaks. */
export interface RelayProtocols {
  upstream: ProtocolRoute;
  client: ProtocolAdapter;
}

/** What the gateway speaks on this exchange (its route decides, translated or not), and what the client speaks. */
export function protocolsOf(plan: ExchangePlan): RelayProtocols {
  return { upstream: routeFor(plan.upstreamPath, plan.method), client: adapterNamed(plan.protocol) };
}

/**
 * A 200 that holds an error (declaredError.ts): the client got the bytes as sent, status and all,
 * so its tools behave as they would without Airlock; the row gets the class and a message with
 * the cause and fix, and the trace knows the answer was an error (no estimate is billed for it).
 */
export function recordDeclaredError(input: RelayInput, declared: DeclaredError, place: DeclaredErrorPlace): UpstreamErrorClass {
  const errorClass = declaredErrorClass(declared);
  input.trace.failed(errorClass, declaredFailureMessage(errorClass, declared, place, input.knownSecrets));
  if (declared.brokeOff === true) input.trace.answerBrokeOff();
  else input.trace.gatewayDeclaredFailure();
  return errorClass;
}

/** What a declared error said, for the error the client gets in its own protocol (known secrets removed). */
export function declaredErrorDetail(input: RelayInput, declared: DeclaredError): ClientErrorDetail {
  return { ...declaredErrorSaid(declared), knownSecrets: [...input.knownSecrets] };
}
