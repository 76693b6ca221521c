import { createContext, useContext, type ReactNode } from 'react';
import type { ControlClient } from './client.ts';

const ApiContext = createContext<ControlClient | null>(null);

export function ApiProvider({ client, children }: { client: ControlClient; children: ReactNode }) {
  return <ApiContext.Provider value={client}>{children}</ApiContext.Provider>;
}

export function useApi(): ControlClient {
  const client = useContext(ApiContext);
  if (!client) throw new Error('useApi() needs an <ApiProvider> above it');
  return client;
}
