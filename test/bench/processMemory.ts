import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** Resident set size now (VmRSS). */
  rssBytes: number;
  /** The resident set's high-water mark since the process started (VmHWM). */
  peakRssBytes: number;
  /** Of the RSS: anonymous memory (heaps, malloc, stacks) and file-backed pages (code and data of the binary and libraries). */
  anonBytes: number;
  fileBytes: number;
}

function fieldKiB(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match === null) throw new Error(`/proc status has no ${name} line`);
  return Number(match[1]);
}

/** Reads another process's memory from /proc/<pid>/status (Linux). */
export function readProcessMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    rssBytes: fieldKiB(status, 'VmRSS') * 1024,
    peakRssBytes: fieldKiB(status, 'VmHWM') * 1024,
    anonBytes: fieldKiB(status, 'RssAnon') * 1024,
    fileBytes: fieldKiB(status, 'RssFile') * 1024,
  };
}

/**
 * Samples a process's RSS every `intervalMs` until stopped, so a peak between samples of VmHWM
 * (which may already be above the current RSS from start-up) is still seen.
 */
export function sampleRss(pid: number, intervalMs: number): { stop(): number } {
  let maxRssBytes = readProcessMemory(pid).rssBytes;
  const timer = setInterval(() => {
    maxRssBytes = Math.max(maxRssBytes, readProcessMemory(pid).rssBytes);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(maxRssBytes, readProcessMemory(pid).rssBytes);
    },
  };
}
