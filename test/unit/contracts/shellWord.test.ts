import { describe, expect, it } from 'vitest';
import { commandHint, shellOf, shellWord } from '../../../proxy/contracts/cli.ts';

// cmd.exe gives single quotes no meaning (they stay in the argument); it and PowerShell both read
// double quotes, which a Windows path cannot hold.
describe('one word of a suggested command', () => {
  it.each([
    ['linux', '/home/me/airlock', '/home/me/airlock'],
    ['linux', '/home/me/my airlock', "'/home/me/my airlock'"],
    ['linux', "/srv/it's here", "'/srv/it'\\''s here'"],
    ['darwin', '/Users/me/Air lock', "'/Users/me/Air lock'"],
    ['win32', 'C:\\Users\\me\\AirlockB', 'C:\\Users\\me\\AirlockB'],
    ['win32', 'C:\\Users\\me\\My Airlock', '"C:\\Users\\me\\My Airlock"'],
    ['win32', "C:\\Users\\O'Brien\\Airlock", '"C:\\Users\\O\'Brien\\Airlock"'],
  ] as const)('on %s: %s as %s', (platform, text, word) => {
    expect(shellWord(text, shellOf(platform))).toBe(word);
  });

  it('names the data directory of a hint for the shell it is given', () => {
    const hint = commandHint('C:\\Users\\me\\My Airlock', { port: () => 9100, shell: 'windows' });
    expect(hint.runningCommand('resume')).toBe('npx airlock resume --port 9100 --data-dir "C:\\Users\\me\\My Airlock"');
  });
});
