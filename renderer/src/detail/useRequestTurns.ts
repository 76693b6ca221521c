import { useContext, useEffect, useMemo, useState } from 'react';
import type { BodyView } from '../../../proxy/contracts/requests.ts';
import { useApi } from '../api/ApiContext.tsx';
import { requestTurns, type Turn } from './conversation.ts';
import { TurnReaderContext } from './turnReader.ts';

export type TurnsState = { kind: 'none' } | { kind: 'loading' } | { kind: 'error'; error: Error } | { kind: 'ready'; turns: Turn[] };

const NONE: TurnsState = { kind: 'none' };
const LOADING: TurnsState = { kind: 'loading' };

/** The endpoints whose body is a conversation: other large bodies (embeddings, audio) are not fetched for one. */
const CONVERSATION_PATH = /\/(?:chat\/completions|messages|responses)(?:\?|$)/;

/**
 * A request body's turns. A body sent with the detail (up to 64 KB) is read here, once per body; a
 * larger one, which the detail does not carry, is fetched once per request and read off the main
 * thread, where a body of several MB would stall the window. A body cut when logged is no JSON.
 */
export function useRequestTurns(requestId: string, clientPath: string, body: BodyView | null): TurnsState {
  const api = useApi();
  const readTurns = useContext(TurnReaderContext);
  const inlineText = body !== null && !body.truncated ? body.text : null;
  const inlineTurns = useMemo(() => (inlineText === null ? null : requestTurns(inlineText)), [inlineText]);
  const fetched = body !== null && !body.truncated && body.text === null && CONVERSATION_PATH.test(clientPath);
  const [read, setRead] = useState<{ requestId: string; state: TurnsState }>({ requestId, state: LOADING });

  useEffect(() => {
    if (!fetched) return;
    let current = true;
    const settle = (state: TurnsState) => {
      if (current) setRead({ requestId, state });
    };
    setRead({ requestId, state: LOADING });
    api
      .requestBody(requestId, 'request')
      .then((fetchedBody) => (fetchedBody.truncated ? null : readTurns(fetchedBody.text)))
      .then(
        (turns) => settle(turns && turns.length > 0 ? { kind: 'ready', turns } : NONE),
        (error: Error) => settle({ kind: 'error', error }),
      );
    return () => {
      current = false;
    };
  }, [api, readTurns, requestId, fetched]);

  if (inlineText !== null) return inlineTurns && inlineTurns.length > 0 ? { kind: 'ready', turns: inlineTurns } : NONE;
  if (!fetched) return NONE;
  return read.requestId === requestId ? read.state : LOADING;
}
