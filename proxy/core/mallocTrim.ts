import { createRequire } from 'node:module';

/**
 * glibc keeps memory that was freed in the middle of its arenas resident until `malloc_trim` hands
 * those pages back; nothing calls it on its own, and Node has no binding for it. After the bench's
 * c=50 load, with both V8 heaps already collected, 18-24 MB of RSS was such free memory (126-131 MB
 * -> 108-111 with a trim), and after its large bodies 88 MB (197 -> 109). koffi (a maintained FFI
 * with prebuilt binaries, no compiler at install) reaches it. Returns a function that trims and
 * says whether pages went back, or null where the C library is not glibc or koffi cannot load it:
 * there memory is simply not trimmed.
 */
export function glibcMallocTrim(): (() => boolean) | null {
  if (process.platform !== 'linux') return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    // libc.so.6 is glibc's soname; musl's C library has another and no malloc_trim.
    const libc = koffi.load('libc.so.6');
    const mallocTrim = libc.func('int malloc_trim(size_t pad)') as (pad: number) => number;
    return () => mallocTrim(0) === 1;
  } catch {
    return null;
  }
}
