import { read } from 'read';
import type { CliDeps } from './cliContext.ts';

/** A pasted secret is a few hundred bytes at most; more means the wrong thing was piped in. */
const MAX_SECRET_INPUT_BYTES = 64 * 1024;

/**
 * A secret typed at a no-echo prompt or piped to stdin, never taken from the command line (argv is
 * visible to every process on the machine and lands in shell history). `noun` names it in the
 * refusal of an input too long to be one.
 */
export async function readSecretInput(deps: CliDeps, prompt: string, noun: string): Promise<string> {
  // The prompt goes to stderr so stdout stays clean for scripts; nothing typed is echoed.
  if (deps.stdin.isTTY) return promptedSecret(deps, prompt, noun);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of deps.stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_SECRET_INPUT_BYTES) throw new Error(`the input on stdin is too long to be a ${noun}: pipe only the ${noun}`);
    chunks.push(buffer);
  }
  // Piped input ends in a line break (echo, a file) as a typed key ends in Enter: not the key's, so not cleaned with a note.
  return decoded(Buffer.concat(chunks)).replace(/\r?\n$/, '');
}

/**
 * UTF-8, or UTF-16 by its byte order mark: Windows PowerShell 5.1's `>` and Out-File write UTF-16LE with one
 * (about_Character_Encoding), and cmd.exe's `< key.txt` passes those bytes on. Read as UTF-8, every second byte was
 * a NUL and the key was refused for "a non-ASCII character at character 1". A UTF-8 mark is left for the cleaning.
 */
function decoded(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff && bytes.length % 2 === 0) return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
  return bytes.toString('utf8');
}

/**
 * The hidden prompt answers with the first line typed, and dropped the rest of a paste holding more without a word: two
 * keys copied together became the first alone, saved as if it were what was pasted. A paste reaches the prompt as one
 * chunk, so a line break with more text after it in a chunk is a paste of several lines: refused, as nothing of it can be
 * told to be the one meant. Nothing pasted is repeated.
 */
async function promptedSecret(deps: CliDeps, prompt: string, noun: string): Promise<string> {
  let pastedLines = 1;
  // Added before the prompt's reader, so it sees each chunk before the prompt answers with the chunk's first line.
  const countLines = (chunk: Buffer | string): void => {
    pastedLines = Math.max(
      pastedLines,
      chunk
        .toString()
        .split(/\r\n|\r|\n/)
        .filter((line) => line.trim() !== '').length,
    );
  };
  deps.stdin.on('data', countLines);
  try {
    const line = await read({ prompt, silent: true, input: deps.stdin, output: deps.stderr });
    if (pastedLines > 1)
      throw new Error(`the paste held ${pastedLines} lines, and a ${noun} is one: nothing was saved; paste only the ${noun}, on one line`);
    return line;
  } finally {
    deps.stdin.off('data', countLines);
  }
}
