import type { Fault, FaultKind } from './types.ts';

/** What a fault needs to know about a request to decide whether it applies. */
export interface FaultTarget {
  path: string;
  isChat: boolean;
  isStream: boolean;
  /** A request that creates a video task. */
  isTaskCreation?: boolean;
}

const CHAT_ONLY: ReadonlySet<FaultKind> = new Set(['reply', 'cutAfter', 'bodyChunks', 'modelFails']);
const STREAM_ONLY: ReadonlySet<FaultKind> = new Set(['slowChunks', 'noDone', 'errorEvent']);
const TASK_CREATION_ONLY: ReadonlySet<FaultKind> = new Set(['createThenFail', 'taskFails']);

export function faultMatches(fault: Fault, target: FaultTarget): boolean {
  if (fault.path !== undefined && !target.path.includes(fault.path)) return false;
  if (CHAT_ONLY.has(fault.kind)) return target.isChat;
  if (STREAM_ONLY.has(fault.kind)) return target.isChat && target.isStream;
  if (TASK_CREATION_ONLY.has(fault.kind)) return target.isTaskCreation === true;
  return true;
}

/** Faults scripted by a test, in order; each matching request takes the first one that fits. */
export class FaultQueue {
  #faults: Fault[] = [];

  push(faults: readonly Fault[]): void {
    this.#faults.push(...faults);
  }

  take(target: FaultTarget): Fault | undefined {
    if (this.#faults.length === 0) return undefined;
    const index = this.#faults.findIndex((fault) => faultMatches(fault, target));
    if (index === -1) return undefined;
    return this.#faults.splice(index, 1)[0];
  }

  clear(): void {
    this.#faults = [];
  }
}
