import { describe, expect, it } from 'vitest';
import { checkHost, checkOrigin, ownOrigins } from '../../../proxy/http/hostOrigin.ts';
import { guardRefusal } from '../../../proxy/http/requestGuards.ts';

const PORT = 8642;

describe('checkHost', () => {
  it.each([
    ['127.0.0.1:8642', true],
    ['localhost:8642', true],
    ['LOCALHOST:8642', true],
    ['[::1]:8642', true],
    [undefined, false],
    ['', false],
    ['127.0.0.1', false],
    ['localhost', false],
    ['127.0.0.1:8643', false],
    ['127.0.0.1:86420', false],
    ['127.evil.example:8642', false],
    ['localhost.evil.example:8642', false],
    ['evil.example:8642', false],
    ['127.0.0.1.nip.io:8642', false],
    ['0.0.0.0:8642', false],
    ['[::1]', false],
    ['::1:8642', false],
    [' 127.0.0.1:8642', false],
    ['127.0.0.1:8642@evil.example', false],
  ])('Host %j -> %s', (host, allowed) => {
    expect(checkHost(host, PORT)).toBe(allowed);
  });
});

describe('checkOrigin', () => {
  it.each([
    [undefined, true],
    ['http://127.0.0.1:8642', true],
    ['http://localhost:8642', true],
    ['null', false],
    ['', false],
    ['https://127.0.0.1:8642', false],
    ['http://127.0.0.1:3000', false],
    ['http://localhost.evil.example:8642', false],
    ['https://evil.example', false],
    ['http://[::1]:8642', false],
  ])('Origin %j -> %s', (origin, allowed) => {
    expect(checkOrigin(origin, ownOrigins(PORT))).toBe(allowed);
  });
});

describe('guardRefusal', () => {
  it.each([
    ['a good request', '127.0.0.1:8642', undefined, '/v1/models', null],
    ['the own window', 'localhost:8642', 'http://localhost:8642', '/_airlock/api/status', null],
    ['a rebound DNS name', 'localhost.evil.example:8642', undefined, '/v1/models', 'forbidden_host'],
    ['a missing Host', undefined, undefined, '/v1/models', 'forbidden_host'],
    ['a foreign page', '127.0.0.1:8642', 'https://evil.example', '/v1/models', 'forbidden_origin'],
    ['an opaque origin', '127.0.0.1:8642', 'null', '/v1/models', 'forbidden_origin'],
    ['an absolute-form target', '127.0.0.1:8642', undefined, 'http://evil.example/v1/models', 'forbidden_target'],
  ])('%s', (_label, host, origin, target, code) => {
    const refusal = guardRefusal(host, origin, target, PORT);
    expect(refusal?.code ?? null).toBe(code);
    if (refusal) expect(refusal).toMatchObject({ status: 403, errorClass: 'forbidden' });
  });
});
