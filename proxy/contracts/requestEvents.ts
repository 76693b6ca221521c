import type { RequestLifecycleEvent } from './lifecycle.ts';

export type RequestEventListener = (event: RequestLifecycleEvent) => void;

/**
 * In-process fan-out of request lifecycle events. Listeners run synchronously on the forwarding
 * path, so each must only enqueue; a listener that throws is reported and never breaks a request.
 */
export class RequestEvents {
  private readonly listeners = new Set<RequestEventListener>();
  private readonly onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = (error) => console.error('[airlock] event listener failed:', error)) {
    this.onListenerError = onListenerError;
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: RequestEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  emit(event: RequestLifecycleEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
