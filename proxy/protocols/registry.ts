import type { ClientProtocol } from '../contracts/usage.ts';
import type { ChatTranslation, EndpointKind, NativeRequestCleanup, ProtocolAdapter, TranslatedProtocol } from './adapter.ts';
import { anthropicAdapter } from './anthropic/adapter.ts';
import { chatAdapter } from './chat/adapter.ts';
import { passthroughAdapter } from './passthrough/adapter.ts';
import { responsesAdapter } from './responses/adapter.ts';

/**
 * The protocols Airlock speaks to clients, each owning its paths. Adding one is a folder with its
 * adapter and a line here; every path no adapter owns is passed through.
 */
const ADAPTERS: readonly ProtocolAdapter[] = [chatAdapter, anthropicAdapter, responsesAdapter];

export interface ProtocolRoute {
  adapter: ProtocolAdapter;
  endpoint: EndpointKind;
}

const PASSTHROUGH: ProtocolRoute = { adapter: passthroughAdapter, endpoint: 'other' };

const ROUTES = new Map<string, ProtocolRoute>(
  ADAPTERS.flatMap((adapter) => Object.entries(adapter.endpoints).map(([path, endpoint]) => [path, { adapter, endpoint }] as const)),
);

/** The protocol of a request for `path` (relative to /v1, normalised): only a POST reaches a protocol's endpoints. */
export function routeFor(path: string, method: string): ProtocolRoute {
  // Node gives the method upper-cased: only another caller's spelling needs the copy.
  if (method !== 'POST' && method.toUpperCase() !== 'POST') return PASSTHROUGH;
  return ROUTES.get(path) ?? PASSTHROUGH;
}

/**
 * A Chat Completions request: its body is a chat body (the token estimate reads it) and a stream
 * of it carries usage only when asked (`stream_options.include_usage`, which Airlock adds).
 */
export function isChatCompletion(route: ProtocolRoute): boolean {
  return route.adapter === chatAdapter && route.endpoint === 'generate';
}

/** Looked up for every answer: a map, not a search. The first adapter of a name answers its clients. */
const ADAPTERS_BY_NAME = new Map<ClientProtocol, ProtocolAdapter>();
for (const adapter of ADAPTERS) if (!ADAPTERS_BY_NAME.has(adapter.name)) ADAPTERS_BY_NAME.set(adapter.name, adapter);

/** The adapter a client of this protocol is answered with (errors, refusals, stream error frames). */
export function adapterNamed(name: ClientProtocol): ProtocolAdapter {
  return ADAPTERS_BY_NAME.get(name) ?? passthroughAdapter;
}

/** The translation named by a `protocolModes` key (the translation thread's jobs carry it). */
export function translationFor(key: TranslatedProtocol): ChatTranslation {
  const translation = ADAPTERS.find((adapter) => adapter.translation?.modeKey === key)?.translation;
  if (translation === undefined) throw new Error(`no protocol translates as ${key}`);
  return translation;
}

/** What a native request of the protocol named by a `protocolModes` key loses (the translation thread's native jobs carry the key). */
export function nativeRequestFor(key: TranslatedProtocol): NativeRequestCleanup | undefined {
  return ADAPTERS.find((adapter) => adapter.translation?.modeKey === key)?.nativeRequest;
}
