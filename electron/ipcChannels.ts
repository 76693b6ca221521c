/** IPC channel names shared by the preload and the main process (no electron import: both bundle it). */
export const IPC_CHANNELS = {
  getControlToken: 'airlock:get-control-token',
  getAppVersion: 'airlock:get-app-version',
  copyToClipboard: 'airlock:copy-to-clipboard',
  openExternal: 'airlock:open-external',
} as const;
