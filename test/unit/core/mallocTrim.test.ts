import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { glibcMallocTrim } from '../../../proxy/core/mallocTrim.ts';

const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');

// The suite runs on Linux with glibc (Debian here and in CI), where the trim must be reachable.
describe('glibcMallocTrim', () => {
  it('gives back pages freed in the middle of the heap, which free() alone keeps', () => {
    const libc = koffi.load('libc.so.6');
    const malloc = libc.func('void *malloc(size_t size)') as (size: number) => unknown;
    const free = libc.func('void free(void *ptr)') as (pointer: unknown) => void;
    const fill = libc.func('void *memset(void *s, int c, size_t n)') as (pointer: unknown, value: number, size: number) => unknown;
    const trim = glibcMallocTrim();
    expect(trim).not.toBeNull();
    trim?.();
    // Blocks below glibc's mmap threshold come from the heap; the last one, kept, pins its top,
    // so the freed ones below it stay resident until a trim.
    const blockBytes = 96 * 1024;
    const blocks = Array.from({ length: 64 }, () => malloc(blockBytes));
    for (const block of blocks) fill(block, 1, blockBytes);
    for (const block of blocks.slice(0, -1)) free(block);
    expect(trim?.()).toBe(true);
    free(blocks.at(-1));
  });
});
