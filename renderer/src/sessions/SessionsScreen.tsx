import { useSessionIdInHash } from '../common/useHashRoute.ts';
import { SessionList } from './SessionList.tsx';
import { SessionTimeline } from './SessionTimeline.tsx';

/** `#/sessions` lists the sessions; `#/sessions/<id>` shows one as its timeline. */
export function SessionsScreen() {
  const sessionId = useSessionIdInHash();
  return sessionId === null ? <SessionList /> : <SessionTimeline key={sessionId} sessionId={sessionId} />;
}
