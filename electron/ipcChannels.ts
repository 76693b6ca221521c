/** IPC channel names shared by the preload and the main process (no electron import: both bundle it). */
export const IPC_CHANNELS = {
  getControlToken: 'airlock:get-control-token',
} as const;
