import type { NoticeKind } from '../contracts/notices.ts';
import { redactKnownSecrets } from '../core/redact.ts';
import { NoticeBoard } from './noticeBoard.ts';
import type { ListenerFaults } from '../http/listenerFaults.ts';

/** What one run says to the user: its start notes (serve's lines) and the board the window shows. */
export interface RunNotices {
  /** Things the user should know at start, as `airlock serve` prints them. */
  lines: string[];
  board: NoticeBoard;
  /** A start note of this kind (none when null): in `lines` and on the board. */
  notice(kind: NoticeKind, message: string | null): void;
  /** Said while running: on stderr for `airlock serve`, in the window and notifications for the desktop. */
  tell(kind: NoticeKind, message: string): void;
  /** A listener that stops taking connections (listenerFaults.ts): told as `listener_failing`, which goes when it listens again. */
  listenerFaults: ListenerFaults;
  /** The secrets to mask from now on; the lines said before are masked again with them. */
  maskWith(knownSecrets: () => string[]): void;
  /** The text with the secrets known now masked: for what the run says elsewhere (its commands' data directory). */
  mask(text: string): string;
}

/**
 * The secrets to mask are known once the keychain and the tokens are read; what is said before
 * (a data directory's name may hold a key) is masked again then, and the board masks at each list().
 */
export function runNotices(dataDir: string, privacyProblems: string[]): RunNotices {
  const lines: string[] = [...privacyProblems];
  let secretsToMask: () => string[] = () => [];
  const board = new NoticeBoard({ knownSecrets: () => secretsToMask(), dataDir });
  if (privacyProblems.length > 0) board.report('data_dir_not_private', privacyProblems.join(' '));
  return {
    lines,
    board,
    notice(kind, message) {
      if (message === null) return;
      // Only the known secrets, as the alarms: a start notice names paths, and one the user chose may look like a token.
      lines.push(redactKnownSecrets(message, secretsToMask()));
      board.report(kind, message);
    },
    tell(kind, message) {
      console.error(`[airlock] ${board.report(kind, message).cause}`);
    },
    listenerFaults: {
      failing: (message) => console.error(`[airlock] ${board.report('listener_failing', message).cause}`),
      recovered: (message) => {
        board.resolve('listener_failing');
        console.error(`[airlock] ${message}`);
      },
    },
    maskWith(knownSecrets) {
      secretsToMask = knownSecrets;
      lines.splice(0, lines.length, ...lines.map((line) => redactKnownSecrets(line, knownSecrets())));
    },
    mask: (text) => redactKnownSecrets(text, secretsToMask()),
  };
}
