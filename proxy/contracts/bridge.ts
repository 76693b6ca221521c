/**
 * What the desktop shell's preload exposes to the window as `window.airlock`. Type only, so the
 * renderer can declare the global without importing anything from electron/. In a plain browser
 * (headless `airlock serve`) the global is absent and the UI uses its cookie session instead.
 */
export const AIRLOCK_BRIDGE_GLOBAL = 'airlock';

export interface AirlockBridge {
  /** The control API token (never a client token, never a gateway key). */
  getControlToken(): Promise<string>;
}
