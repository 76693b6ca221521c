import { createRequire } from 'node:module';

const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
// The suites run on Linux with glibc (Debian here and in CI): mallinfo2 sums every arena's blocks in use.
const libc = koffi.load('libc.so.6');
const MALLINFO2_FIELDS = ['arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost'];
koffi.struct('mallinfo2', Object.fromEntries(MALLINFO2_FIELDS.map((field) => [field, 'size_t'])));
const mallinfo2 = libc.func('mallinfo2 mallinfo2()') as () => { uordblks: number | bigint; hblkhd: number | bigint };

/** Bytes this process's malloc has handed out and not had back: arenas' blocks in use plus mmapped blocks. */
export const mallocInUseBytes = (): number => {
  const info = mallinfo2();
  return Number(info.uordblks) + Number(info.hblkhd);
};
