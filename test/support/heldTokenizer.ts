import { vi } from 'vitest';
import { tokenEstimator } from '../../proxy/spend/tokenEstimator.ts';

/**
 * The tokenizer's thread as stopped (before its first count, or after its idle stop), its counts held
 * until the returned release is called: a client's answer that waited for them would never end.
 * Undone by vi.restoreAllMocks().
 */
export function holdTokenizer(): () => void {
  vi.spyOn(tokenEstimator, 'running', 'get').mockReturnValue(false);
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const textTokens = tokenEstimator.textTokens.bind(tokenEstimator);
  const chatInputTokens = tokenEstimator.chatInputTokens.bind(tokenEstimator);
  vi.spyOn(tokenEstimator, 'textTokens').mockImplementation(async (text) => {
    await released;
    return textTokens(text);
  });
  vi.spyOn(tokenEstimator, 'chatInputTokens').mockImplementation(async (chunks, byteLength) => {
    await released;
    return chatInputTokens(chunks, byteLength);
  });
  return release;
}
