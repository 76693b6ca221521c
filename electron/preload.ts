/**
 * The window's only door to the main process: one named function, an IPC invoke that the main
 * process checks against the sender. No ipcRenderer, no Node API reaches the page. (Links and
 * copying need no bridge: the main process opens allowed links itself, the page has the clipboard.)
 */
import { contextBridge, ipcRenderer } from 'electron';
import { AIRLOCK_BRIDGE_GLOBAL, type AirlockBridge } from '../proxy/contracts/bridge.ts';
import { IPC_CHANNELS } from './ipcChannels.ts';

const bridge: AirlockBridge = {
  getControlToken: () => ipcRenderer.invoke(IPC_CHANNELS.getControlToken),
};

contextBridge.exposeInMainWorld(AIRLOCK_BRIDGE_GLOBAL, bridge);
