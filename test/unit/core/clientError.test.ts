import { describe, expect, it } from 'vitest';
import { LOCAL_ERROR_CLASSES, UPSTREAM_ERROR_CLASSES, type ErrorClass } from '../../../proxy/contracts/errors.ts';
import { buildClientError, explainError, type ClientErrorDetail } from '../../../proxy/core/errorClass.ts';
import { SENTINEL_KEY, findSentinel } from '../../support/sentinel.ts';

const ALL_CLASSES: ErrorClass[] = [...UPSTREAM_ERROR_CLASSES, ...LOCAL_ERROR_CLASSES];
const NOT_RETRYABLE: ErrorClass[] = ['bad_request', 'auth', 'model_not_found', 'html_instead_of_json'];

describe('explainError', () => {
  it.each(ALL_CLASSES)('%s has a distinct meaning and a fix', (errorClass) => {
    const { meaning, fix } = explainError(errorClass);
    expect(meaning.length).toBeGreaterThan(20);
    expect(fix.length).toBeGreaterThan(10);
    const others = ALL_CLASSES.filter((other) => other !== errorClass).map((other) => explainError(other).meaning);
    expect(others).not.toContain(meaning);
  });

  it.each(NOT_RETRYABLE)('%s is not retryable: never retried automatically', (errorClass) => {
    expect(explainError(errorClass).retryable).toBe(false);
  });

  it('calls a paused Airlock not retryable, as its refusal tells clients (x-should-retry: false)', () => {
    expect(explainError('proxy_paused').retryable).toBe(false);
  });

  it("tells Airlock's total timeout from the gateway's 504 or 524, which raising totalTimeoutMs does not fix", () => {
    const { meaning, fix } = explainError('timeout_total');
    expect(meaning).toMatch(/504 or 524/);
    expect(fix).toMatch(/totalTimeoutMs/);
    expect(fix).toMatch(/stream/);
  });

  it.each<[ErrorClass, RegExp]>([
    ['html_instead_of_json', /\/v1\/v1/],
    ['html_instead_of_json', /ending in \/v1/],
    ['timeout_idle', /reasoning models/],
    ['timeout_idle', /idleTimeoutMs/],
    ['timeout_connect', /connectTimeoutMs/],
    ['timeout_total', /totalTimeoutMs/],
    ['model_not_found', /GET \/v1\/models/],
    ['quota_exhausted', /top up/i],
  ])('%s mentions %s', (errorClass, pattern) => {
    const { meaning, fix } = explainError(errorClass);
    expect(`${meaning} ${fix}`).toMatch(pattern);
  });
});

describe('buildClientError', () => {
  it.each<[string, ErrorClass, ClientErrorDetail, string, RegExp[]]>([
    ['class as code without upstream code', 'upstream_error', {}, 'upstream_error', [/no valid answer/, /Retry once/]],
    ['upstream code kept', 'auth', { errorCode: 'invalid_api_key' }, 'invalid_api_key', [/refused the key/]],
    ['profile named for auth', 'auth', { profileName: 'work' }, 'auth', [/\(profile "work"\)\./]],
    ['profile not named for other classes', 'rate_limited', { profileName: 'work' }, 'rate_limited', [/^(?!.*profile "work")/]],
    [
      'suggestions for model_not_found',
      'model_not_found',
      { suggestions: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1'] },
      'model_not_found',
      [/Did you mean: gpt-4o, gpt-4o-mini, gpt-4\.1\?/],
    ],
    ['no suggestion line when none', 'model_not_found', { suggestions: [] }, 'model_not_found', [/^(?!.*Did you mean)/]],
    ['idle timeout named', 'timeout_idle', { timeoutMs: 300000 }, 'timeout_idle', [/\(idleTimeoutMs = 300000 ms\)/]],
    ['connect timeout named', 'timeout_connect', { timeoutMs: 10000 }, 'timeout_connect', [/\(connectTimeoutMs = 10000 ms\)/]],
    ['total timeout named', 'timeout_total', { timeoutMs: 5000 }, 'timeout_total', [/\(totalTimeoutMs = 5000 ms\)/]],
    [
      'upstream text quoted',
      'bad_request',
      { upstreamMessage: 'temperature\n  too high' },
      'bad_request',
      [/Gateway said: "temperature too high"$/],
    ],
    ['404 path hint', 'bad_request', { upstreamStatus: 404 }, 'bad_request', [/no endpoint at this path/]],
    ['413 size hint', 'bad_request', { upstreamStatus: 413 }, 'bad_request', [/over the size limit of the gateway/]],
    ['network code hint', 'network', { errorCode: 'ENOTFOUND' }, 'ENOTFOUND', [/does not resolve/]],
    [
      "a failed connection: the gateway it was, and Node's words as the connection's",
      'network',
      {
        errorCode: 'ECONNREFUSED',
        upstreamMessage: 'connect ECONNREFUSED 10.0.0.1:443',
        profileName: 'Work',
        baseUrl: 'https://gw.example/v1',
      },
      'ECONNREFUSED',
      [
        /\(profile "Work", base URL https:\/\/gw\.example\/v1\)\./,
        /Connection error: "connect ECONNREFUSED 10\.0\.0\.1:443"$/,
        /^(?!.*Gateway said)/,
      ],
    ],
    [
      'body refused mid-upload',
      'network',
      { errorCode: 'EPIPE' },
      'EPIPE',
      [/closed the connection while the request was still being sent/, /size limit/],
    ],
    [
      'unknown certificate issuer, the OS store not tried',
      'network',
      { errorCode: 'SELF_SIGNED_CERT_IN_CHAIN' },
      'SELF_SIGNED_CERT_IN_CHAIN',
      [/certificate authority Airlock does not trust/, /^(?!.*certificate store)/],
    ],
    [
      'unknown certificate issuer after the OS store was trusted too',
      'network',
      { errorCode: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', osCaStoreTrusted: true },
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      [/this computer's certificate store too/, /restart Airlock/],
    ],
    ['html fix', 'html_instead_of_json', {}, 'html_instead_of_json', [/web page/, /ending in \/v1/]],
  ])('%s', (_label, errorClass, detail, code, patterns) => {
    const body = buildClientError(errorClass, detail);
    expect(body.error.type).toBe(errorClass);
    expect(body.error.code).toBe(code);
    for (const pattern of patterns) expect(body.error.message).toMatch(pattern);
  });

  it('caps a long upstream message', () => {
    const body = buildClientError('bad_request', { upstreamMessage: 'word '.repeat(1000) });
    expect(body.error.message.length).toBeLessThan(1000);
    expect(body.error.message).toMatch(/…"$/);
  });

  it('never carries the key in the base URL it names (a hand-edited config)', () => {
    const baseUrl = `https://gateway.example/v1?key=${SENTINEL_KEY}`;
    for (const knownSecrets of [[SENTINEL_KEY], []]) {
      const body = buildClientError('html_instead_of_json', { profileName: 'Main', baseUrl, knownSecrets });
      expect(body.error.message).toContain('https://gateway.example/v1');
      expect(findSentinel(JSON.stringify(body))).toBeNull();
    }
  });

  // A password or token that is no key by its shape and not the profile's key (a Basic-auth proxy's, a relay's
  // query token) is caught by neither mask: the address is named without its userinfo, query and fragment.
  it.each<[ErrorClass, string, string]>([
    ['network', 'http://user:hunter2-corp-pass@gateway.example:8080/v1', 'http://[redacted]@gateway.example:8080/v1'],
    ['network', 'https://gateway.example/v1?token=hunter2-corp-pass', 'https://gateway.example/v1?[redacted]'],
    ['html_instead_of_json', 'https://gateway.example/v1#hunter2-corp-pass', 'https://gateway.example/v1#[redacted]'],
    ['network', 'https://user%3Ahunter2-corp-pass@gateway.example/v1', 'https://[redacted]@gateway.example/v1'],
  ])('%s names %s as %s: nothing of its credentials', (errorClass, baseUrl, shown) => {
    const body = buildClientError(errorClass, { profileName: 'Main', baseUrl, knownSecrets: [] });
    expect(body.error.message).toContain(`base URL ${shown})`);
    expect(body.error.message).not.toContain('hunter2');
  });

  it('names a base URL without credentials as the config spells it', () => {
    const baseUrl = 'HTTPS://Gateway.Example:443/api/v1';
    const body = buildClientError('network', { profileName: 'Main', baseUrl, knownSecrets: [] });
    expect(body.error.message).toContain(`(profile "Main", base URL ${baseUrl})`);
  });

  const base64 = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    ['raw', `Invalid key ${SENTINEL_KEY}`],
    ['Bearer', `header was Authorization: Bearer ${SENTINEL_KEY}`],
    ['URL-encoded', `GET /v1/models?key=${encodeURIComponent(SENTINEL_KEY)}`],
    ['base64', `basic auth ${base64(`user:${SENTINEL_KEY}`)} rejected`],
    ['base64 at offset 1', `token=${base64(`:${SENTINEL_KEY}`)}`],
  ])('never carries the key from upstream text (%s)', (_label, upstreamMessage) => {
    for (const knownSecrets of [[SENTINEL_KEY], []]) {
      const body = buildClientError('auth', { upstreamMessage, errorCode: SENTINEL_KEY, knownSecrets });
      expect(findSentinel(JSON.stringify(body))).toBeNull();
    }
  });
});

// Codex replaces a 403 whose body holds both words with its own "Access blocked by Cloudflare … restricted
// region" (codex-rs/core/src/error.rs, UnexpectedResponseError::friendly_message): the cause and what the
// gateway said would be lost, and a JSON 403 of the gateway's own blamed on Cloudflare.
describe("a 403's error, as Codex reads it", () => {
  it('never holds "Cloudflare" and "blocked" together', () => {
    const { message } = buildClientError('bad_request', {
      upstreamStatus: 403,
      upstreamMessage: 'Your account is not allowed to use this model.',
    }).error;
    expect(message).toContain('firewall');
    expect(message.includes('Cloudflare') && message.includes('blocked')).toBe(false);
  });

  // A gateway's own JSON 403 is most often a key not allowed a model or an API; the hint spoke only of firewalls.
  it("names a key's missing permission as a cause, beside the firewall's", () => {
    const { message } = buildClientError('bad_request', {
      upstreamStatus: 403,
      upstreamMessage: 'Your account is not allowed to use this model.',
    }).error;
    expect(message).toContain('the key may not be allowed this model or API');
    expect(message).toContain("ask the gateway's operator what the key may use");
  });
});
