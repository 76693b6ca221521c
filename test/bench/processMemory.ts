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

/** A `Name:   123 kB` line of a /proc file (status, smaps_rollup), in bytes; `file` names the file in the error. */
export function kiBFieldBytes(text: string, name: string, file: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
  if (match === null) throw new Error(`${file} has no ${name} line`);
  return Number(match[1]) * 1024;
}

/** Reads another process's memory from /proc/<pid>/status (Linux). */
export function readProcessMemory(pid: number): ProcessMemory {
  const file = `/proc/${pid}/status`;
  const status = readFileSync(file, 'utf8');
  return {
    rssBytes: kiBFieldBytes(status, 'VmRSS', file),
    peakRssBytes: kiBFieldBytes(status, 'VmHWM', file),
    anonBytes: kiBFieldBytes(status, 'RssAnon', file),
    fileBytes: kiBFieldBytes(status, 'RssFile', file),
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
