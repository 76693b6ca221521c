/**
 * Whether an error says the process is out of file descriptors (EMFILE, ENFILE: another program
 * leaking sockets, a low `ulimit -n`): a state of the process, which passes, not a fault of what
 * failed. Node words it in the message whatever the code, and a worker thread's error reaches its
 * parent with the message only ("Cannot read package config …: too many open files.", "EMFILE: too
 * many open files, open …"); ENFILE is "file table overflow" on Linux.
 */
export function isOutOfDescriptors(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return OUT_OF_DESCRIPTORS.test(message);
}

const OUT_OF_DESCRIPTORS = /too many open files|file table overflow|\bE[MN]FILE\b/i;
