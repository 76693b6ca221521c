import { DISK_FULL_REASON } from './write/writer.ts';

export function lowDiskReason(minFreeDiskBytes: number): string {
  const megabytes = Math.round(minFreeDiskBytes / (1024 * 1024));
  return `Less than ${megabytes} MB is free on the disk: request bodies are no longer logged. Free disk space to turn bodies back on.`;
}

export interface BodiesSwitchState {
  /** Why bodies are off now, or null while they are logged. */
  reason: string | null;
  /** Free bytes on the log's disk, null when the OS would not say. */
  freeDiskBytes: number | null;
  /** Below this much free disk space, bodies are not logged. */
  minFreeDiskBytes: number;
  /** Bytes the log's pages hold now, and when bodies went off. */
  usedBytes: number;
  usedBytesWhenDisabled: number | null;
  /** The log has a size limit of its own: a full log there says nothing about the disk. */
  sizeLimited: boolean;
}

/**
 * Why bodies should be off now, or null to log them: off below the free-space floor, back once
 * the disk is over it again (after a write found it full too) or retention freed pages in the log.
 */
export function bodiesOffReason(state: BodiesSwitchState): string | null {
  if (state.freeDiskBytes !== null && state.freeDiskBytes < state.minFreeDiskBytes) return lowDiskReason(state.minFreeDiskBytes);
  if (state.reason === null || state.reason === lowDiskReason(state.minFreeDiskBytes)) return null;
  if (state.usedBytesWhenDisabled !== null && state.usedBytes < state.usedBytesWhenDisabled) return null;
  // A full disk the user freed, as the alarm asks: the log's own size may have grown since.
  const diskHasRoom = state.freeDiskBytes !== null && state.freeDiskBytes > state.minFreeDiskBytes;
  if (state.reason === DISK_FULL_REASON && !state.sizeLimited && diskHasRoom) return null;
  return state.reason;
}
