import { EventEmitter } from 'node:events';

/**
 * Loaded first (--import) into a process the utilityProcess stand-in starts, to make it what
 * Electron's docs say a utility process is (api/utility-process, api/parent-port): the app is
 * reached through process.parentPort, whose 'message' events carry `{ data, ports }` and are
 * queued until a listener is added, and there is no process.send. Chromium ends its child
 * processes with the browser process, so this one ends when the app's process does.
 */
const sendToApp = process.send?.bind(process);
if (!sendToApp) throw new Error('the utility process stand-in is started with an IPC channel');
delete process.send;

/** Messages from the app, in order, until a listener hears them. */
const queued: unknown[] = [];
const parentPort = new EventEmitter();
const deliverQueued = (): void => {
  if (parentPort.listenerCount('message') === 0) return;
  for (const data of queued.splice(0)) parentPort.emit('message', { data, ports: [] });
};
// newListener is emitted before the listener is added: the queue is delivered once it is there.
parentPort.on('newListener', (event: string) => {
  if (event === 'message') setImmediate(deliverQueued);
});
Object.defineProperty(process, 'parentPort', {
  enumerable: true,
  writable: false,
  value: Object.assign(parentPort, { postMessage: (message: unknown) => void sendToApp(message) }),
});

process.on('message', (data) => {
  queued.push(data);
  deliverQueued();
});
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
