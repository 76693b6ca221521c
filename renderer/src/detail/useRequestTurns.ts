import { useContext, useEffect, useMemo, useState } from 'react';
import type { BodyView } from '../../../proxy/contracts/requests.ts';
import type { FetchBody } from './bodyFetch.ts';
import { requestTurns, type Turn } from './conversation.ts';
import { BodyReaderContext } from './bodyReader.ts';

/** `cut`: the log kept the body only up to its capture limit, and a cut body is no JSON to read turns from. */
export type TurnsState =
  | { kind: 'none' }
  | { kind: 'cut' }
  | { kind: 'loading' }
  | { kind: 'error'; error: Error }
  | { kind: 'ready'; turns: Turn[] };

const NONE: TurnsState = { kind: 'none' };
const CUT: TurnsState = { kind: 'cut' };
const LOADING: TurnsState = { kind: 'loading' };

/** The endpoints whose body is a conversation: other large bodies (embeddings, audio) are not fetched for one. */
const CONVERSATION_PATH = /\/(?:chat\/completions|messages|responses)(?:\?|$)/;

/**
 * A request body's turns. A body sent with the detail (up to 64 KB) is read here, once per body; a
 * larger one, which the detail does not carry, is fetched (once for all the detail's views) and read off the main
 * thread, where a body of several MB would stall the window.
 */
export function useRequestTurns(requestId: string, clientPath: string, body: BodyView | null, fetchBody: FetchBody): TurnsState {
  const reader = useContext(BodyReaderContext);
  const inlineText = body !== null && !body.truncated ? body.text : null;
  const inlineTurns = useMemo(() => (inlineText === null ? null : requestTurns(inlineText)), [inlineText]);
  const conversationPath = CONVERSATION_PATH.test(clientPath);
  const fetched = body !== null && !body.truncated && body.text === null && conversationPath;
  const [read, setRead] = useState<{ requestId: string; state: TurnsState }>({ requestId, state: LOADING });

  useEffect(() => {
    if (!fetched) return;
    let current = true;
    const settle = (state: TurnsState) => {
      if (current) setRead({ requestId, state });
    };
    setRead({ requestId, state: LOADING });
    fetchBody('request')
      .then(async (fetchedBody) => {
        if (fetchedBody.truncated) return settle(CUT);
        // Another request was opened meanwhile (arrowing down the list): its body is not read for nothing.
        if (!current) return;
        const turns = await reader.turns(fetchedBody.text);
        settle(turns && turns.length > 0 ? { kind: 'ready', turns } : NONE);
      })
      .catch((error: Error) => settle({ kind: 'error', error }));
    return () => {
      current = false;
    };
  }, [fetchBody, reader, requestId, fetched]);

  if (body?.truncated && conversationPath) return CUT;
  if (inlineText !== null) return inlineTurns && inlineTurns.length > 0 ? { kind: 'ready', turns: inlineTurns } : NONE;
  if (!fetched) return NONE;
  return read.requestId === requestId ? read.state : LOADING;
}
