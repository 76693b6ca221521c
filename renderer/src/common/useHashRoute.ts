import { useEffect, useState } from 'react';

export const SCREENS = ['live', 'spend', 'profiles', 'models', 'connect'] as const;
export type Screen = (typeof SCREENS)[number];

/** `#/spend` → 'spend'; anything unknown (including the login fragment) → 'live'. */
export function screenFromHash(hash: string): Screen {
  const name = hash.replace(/^#\/?/, '');
  return (SCREENS as readonly string[]).includes(name) ? (name as Screen) : 'live';
}

export function useHashRoute(): Screen {
  const [screen, setScreen] = useState<Screen>(() => screenFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setScreen(screenFromHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return screen;
}
