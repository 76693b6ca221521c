/**
 * The window's only door to the main process: four named functions, each an IPC invoke that the
 * main process checks against the sender. No ipcRenderer, no Node API reaches the page.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { AIRLOCK_BRIDGE_GLOBAL, type AirlockBridge } from '../proxy/contracts/bridge.ts';
import { IPC_CHANNELS } from './ipcChannels.ts';

const bridge: AirlockBridge = {
  getControlToken: () => ipcRenderer.invoke(IPC_CHANNELS.getControlToken),
  getAppVersion: () => ipcRenderer.invoke(IPC_CHANNELS.getAppVersion),
  copyToClipboard: (text: string) => ipcRenderer.invoke(IPC_CHANNELS.copyToClipboard, text),
  openExternal: (url: string) => ipcRenderer.invoke(IPC_CHANNELS.openExternal, url),
};

contextBridge.exposeInMainWorld(AIRLOCK_BRIDGE_GLOBAL, bridge);
