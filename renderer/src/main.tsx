import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { AirlockBridge } from '../../proxy/contracts/bridge.ts';
import { ApiProvider } from './api/ApiContext.tsx';
import { createControlClient } from './api/client.ts';
import { App } from './App.tsx';
import './styles.css';
import './sessionsAndReplay.css';

declare global {
  interface Window {
    /** Set by Electron's preload; absent in a browser, which signs in with the session cookie. */
    airlock?: AirlockBridge;
  }
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

async function start(container: HTMLElement): Promise<void> {
  const controlToken = window.airlock ? await window.airlock.getControlToken() : null;
  createRoot(container).render(
    <StrictMode>
      <ApiProvider client={createControlClient({ controlToken })}>
        <App />
      </ApiProvider>
    </StrictMode>,
  );
}

void start(root);
