import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { AirlockPreloadBridge } from '../../proxy/contracts/api.ts';
import { ApiProvider } from './api/ApiContext.tsx';
import { createControlClient } from './api/client.ts';
import { App } from './App.tsx';
import './styles.css';

declare global {
  interface Window {
    /** Set by Electron's preload; absent in a browser, which signs in with the session cookie. */
    airlock?: AirlockPreloadBridge;
  }
}

const client = createControlClient({ controlToken: window.airlock?.controlToken ?? null });
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <ApiProvider client={client}>
      <App />
    </ApiProvider>
  </StrictMode>,
);
