import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localtimeLinkZone, osZoneReader } from '../../../proxy/core/localZone.ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'airlock-zone-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The OS's zone as /etc/localtime names it: Linux links into /usr/share/zoneinfo, macOS into /var/db/timezone/zoneinfo. */
describe('reading the OS time zone', () => {
  it.each([
    { name: 'a Linux link', target: '/usr/share/zoneinfo/Europe/Paris', zone: 'Europe/Paris' },
    { name: 'a macOS link', target: '/var/db/timezone/zoneinfo/America/Los_Angeles', zone: 'America/Los_Angeles' },
    { name: 'a relative link', target: '../usr/share/zoneinfo/Asia/Kolkata', zone: 'Asia/Kolkata' },
    { name: 'a link into posix/', target: '/usr/share/zoneinfo/posix/Asia/Tokyo', zone: 'Asia/Tokyo' },
    { name: 'a link elsewhere (told apart, not named)', target: '/opt/zones/custom', zone: '/opt/zones/custom' },
  ])('names the zone of $name', ({ target, zone }) => {
    const link = path.join(dir, 'localtime');
    symlinkSync(target, link);
    expect(localtimeLinkZone(link)).toBe(zone);
  });

  it('tells a copied zone file by its identity, which a new copy changes, and none by null', () => {
    const copied = path.join(dir, 'localtime');
    writeFileSync(copied, 'TZif Europe/Paris');
    const first = localtimeLinkZone(copied);
    expect(first).toMatch(/^copied zone file /);
    expect(localtimeLinkZone(copied)).toBe(first);
    // A zone tool writes a new file and renames it over: another inode.
    writeFileSync(`${copied}.new`, 'TZif Asia/Tokyo');
    renameSync(`${copied}.new`, copied);
    expect(localtimeLinkZone(copied)).not.toBe(first);
    expect(localtimeLinkZone(path.join(dir, 'missing'))).toBeNull();
  });

  it('keeps a TZ the process was started with: the user chose it', () => {
    expect(osZoneReader({ TZ: 'Asia/Kathmandu' }, 'linux')()).toBe('Asia/Kathmandu');
    expect(osZoneReader({ TZ: 'Asia/Kathmandu' }, 'win32')()).toBe('Asia/Kathmandu');
  });

  it('asks V8 to detect the zone again on Windows, which has no link to read', () => {
    expect(osZoneReader({}, 'win32')()).toBeNull();
  });
});
