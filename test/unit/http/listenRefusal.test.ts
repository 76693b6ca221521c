import { describe, expect, it } from 'vitest';
import { listenFailure, listenRefusal, PortBlockedError, PortInUseError } from '../../../proxy/http/listenRefusal.ts';

describe('listenRefusal', () => {
  it.each([
    ['EADDRINUSE', 'in_use'],
    // Windows: a port in an excluded range (Hyper-V, WSL 2, Docker) or held exclusively by another program.
    ['EACCES', 'blocked'],
    ['EPERM', 'blocked'],
    ['EADDRNOTAVAIL', null],
    ['EMFILE', null],
    [undefined, null],
  ])('%s -> %s', (code, refusal) => {
    expect(listenRefusal(code)).toBe(refusal);
  });
});

describe('listenFailure', () => {
  const failed = (code: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`listen ${code}: 127.0.0.1:8642`), { code, syscall: 'listen' });

  it('names a port in use', () => {
    const error = listenFailure(failed('EADDRINUSE'), 8642, '127.0.0.1');
    expect(error).toBeInstanceOf(PortInUseError);
    expect(error.message).toContain('8642');
  });

  it.each(['EACCES', 'EPERM'])(
    'names a port the system refuses (%s) as blocked or reserved, and where Windows lists its reserved ranges',
    (code) => {
      const error = listenFailure(failed(code), 8642, '127.0.0.1');
      expect(error).toBeInstanceOf(PortBlockedError);
      expect(error.message).toContain('Port 8642 on 127.0.0.1 is blocked or reserved');
      // Not "no program may be listening", which reads as a rule that none is allowed to.
      expect(error.message).toContain('even if no program listens on it');
      expect(error.message).toContain('netsh int ipv4 show excludedportrange protocol=tcp');
      expect((error as PortBlockedError).code).toBe(code);
    },
  );

  it('leaves any other failure as it came', () => {
    const other = failed('EADDRNOTAVAIL');
    expect(listenFailure(other, 8642, '127.0.0.1')).toBe(other);
  });
});
