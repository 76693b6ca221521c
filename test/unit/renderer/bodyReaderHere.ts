import type { BodyReader } from '../../../renderer/src/detail/bodyReader.ts';
import { readBodyTree } from '../../../renderer/src/detail/bodyTree.ts';
import { requestTurns } from '../../../renderer/src/detail/conversation.ts';

/** happy-dom has no workers: a large body is read on the test's thread (the e2e tests read it in Chromium's worker). */
export const bodyReaderHere: BodyReader = {
  turns: async (bodyText) => requestTurns(bodyText),
  tree: async (bodyText) => readBodyTree(bodyText),
};
