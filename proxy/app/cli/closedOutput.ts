/**
 * A reader that stops reading (`airlock export requests --format csv | head -1`) closes the pipe,
 * and the next write fails with EPIPE, which Node raises as an unhandled error with a stack trace
 * and exit code 1. The reader took what it wanted, so nothing failed: a command that ends in a
 * moment ends now, quietly, with 0; `airlock serve` goes on serving, its output going nowhere.
 */
export function onClosedOutput(stream: NodeJS.WriteStream, whenClosed: () => void): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    whenClosed();
  });
}
