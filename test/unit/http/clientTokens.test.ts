import { describe, expect, it } from 'vitest';
import { emptyConfig, type ConfigFile } from '../../../proxy/contracts/config.ts';
import { addClientToken, addProfile, updateSettings } from '../../../proxy/app/profiles/configMutations.ts';
import { findTokenRecord, generateToken, presentedTokens, sha256Hex, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { ANONYMOUS_IDENTITY, createClientAuthenticator } from '../../../proxy/http/clientAuthenticator.ts';
import { newRequestId } from '../../../proxy/core/requestId.ts';

const followerToken = generateToken();
const pinnedToken = generateToken();

function config(): ConfigFile {
  let next = addProfile(emptyConfig(), { id: 'a', name: 'A', baseUrl: 'https://a.example/v1' });
  next = addProfile(next, { id: 'b', name: 'B', baseUrl: 'https://b.example/v1' });
  next = addClientToken(next, tokenRecord('cursor', followerToken, null, 1));
  return addClientToken(next, tokenRecord('claude', pinnedToken, 'b', 2));
}

describe('generateToken', () => {
  it('is alk_ plus 256 random bits in base64url, different every time', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => generateToken()));
    expect(tokens.size).toBe(50);
    for (const token of tokens) {
      expect(token).toMatch(/^alk_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
    }
  });

  it('a record keeps the hash and last four, never the token', () => {
    const record = tokenRecord('x', followerToken, null, 7);
    expect(record.tokenSha256).toBe(sha256Hex(followerToken));
    expect(record.lastFour).toBe(followerToken.slice(-4));
    expect(JSON.stringify(record)).not.toContain(followerToken);
  });
});

describe('presentedTokens', () => {
  it.each([
    [{ authorization: 'Bearer alk_one' }, ['alk_one']],
    [{ authorization: 'bearer   alk_one ' }, ['alk_one']],
    [{ 'x-api-key': 'alk_two' }, ['alk_two']],
    [{ authorization: 'Bearer alk_one', 'x-api-key': 'alk_two' }, ['alk_one', 'alk_two']],
    // Azure OpenAI clients (the openai SDKs' AzureOpenAI) send their key as `api-key`.
    [{ 'api-key': 'alk_three' }, ['alk_three']],
    [{ authorization: 'Bearer alk_one', 'x-api-key': 'alk_two', 'api-key': ' alk_three ' }, ['alk_one', 'alk_two', 'alk_three']],
    [{ 'api-key': '' }, []],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, []],
    [{ authorization: 'Bearer' }, []],
    [{ 'x-api-key': '   ' }, []],
    [{}, []],
  ])('%j -> %j', (headers, expected) => {
    expect(presentedTokens(headers)).toEqual(expected);
  });
});

describe('findTokenRecord', () => {
  it.each([
    ['the exact token', () => followerToken, 'cursor'],
    ['the pinned token', () => pinnedToken, 'claude'],
    ['a token one character off', () => `${followerToken.slice(0, -1)}x`, null],
    ['a prefix of the token', () => followerToken.slice(0, 20), null],
    ['the stored hash itself', () => sha256Hex(followerToken), null],
    ['an empty string', () => '', null],
  ])('%s', (_label, token, expected) => {
    expect(findTokenRecord(token(), config().clientTokens)?.name ?? null).toBe(expected);
  });
});

describe('createClientAuthenticator', () => {
  it.each([
    [
      'Bearer of a following token',
      { authorization: `Bearer ${followerToken}` },
      { tokenName: 'cursor', pinnedProfileId: null, defaultModel: null },
    ],
    ['x-api-key of a pinned token', { 'x-api-key': pinnedToken }, { tokenName: 'claude', pinnedProfileId: 'b', defaultModel: null }],
    ["an Azure client's api-key", { 'api-key': pinnedToken }, { tokenName: 'claude', pinnedProfileId: 'b', defaultModel: null }],
    [
      'a wrong Bearer but a valid x-api-key',
      { authorization: 'Bearer nope', 'x-api-key': pinnedToken },
      { tokenName: 'claude', pinnedProfileId: 'b', defaultModel: null },
    ],
  ])('accepts %s', (_label, headers, identity) => {
    expect(createClientAuthenticator({ snapshot: config }).authenticate(headers)).toEqual(identity);
  });

  it("carries the token's default model to model routing", () => {
    const withDefault = { ...config(), clientTokens: config().clientTokens.map((record) => ({ ...record, defaultModel: 'qwen-plus' })) };
    const identity = createClientAuthenticator({ snapshot: () => withDefault }).authenticate({ 'x-api-key': pinnedToken });
    expect(identity).toMatchObject({ tokenName: 'claude', defaultModel: 'qwen-plus' });
  });

  it.each([
    ['no token', {}, /^No Airlock client token was sent\./],
    // Sent, but not where Airlock reads one: "no token was sent" sent the user to look for a missing setting.
    ['a Basic header', { authorization: 'Basic dXNlcjpwYXNz' }, /^The Authorization header sent holds no "Bearer <token>"/],
    ['a token without its Bearer word', { authorization: generateToken() }, /^The Authorization header sent holds no "Bearer <token>"/],
    // Continue's CLI 1.5.47 with no apiKey in its model entry sends `Bearer` and nothing after it.
    [
      'an empty Bearer',
      { authorization: 'Bearer ' },
      /^The Authorization header sent has "Bearer" and no token after it: the tool's API key is empty\./,
    ],
    ['a bare Bearer', { authorization: 'Bearer' }, /^The Authorization header sent has "Bearer" and no token after it/],
    // Request ids start with alk_ too (core/requestId.ts): copied from the window's log, one is no revoked token.
    [
      'a request id pasted as the token',
      { authorization: `Bearer ${newRequestId()}` },
      /^This is an Airlock request id \(from an answer's x-airlock-request-id\), not a client token\./,
    ],
    ['an unknown token', { authorization: `Bearer ${generateToken()}` }, /^This Airlock client token is unknown here \(revoked/],
    ['a revoked-looking x-api-key', { 'x-api-key': generateToken() }, /^This Airlock client token is unknown here/],
    [
      'a gateway key instead of a token',
      { authorization: 'Bearer sk-something' },
      /^The key sent is not an Airlock client token .*adds your gateway key itself/,
    ],
    ['a gateway key in x-api-key', { 'x-api-key': 'sk-ant-something' }, /^The key sent is not an Airlock client token/],
  ])('refuses %s with 401, the cause and where to find the token', (_label, headers, cause) => {
    const refusal = createClientAuthenticator({ snapshot: config }).authenticate(headers);
    expect(refusal).toMatchObject({ status: 401, errorClass: 'client_unauthorized' });
    expect(refusal).toHaveProperty('message', expect.stringMatching(cause));
    // Nothing of what was sent comes back: it may be the gateway key.
    expect(refusal).toHaveProperty('message', expect.not.stringContaining('something'));
    expect(refusal).toHaveProperty('message', expect.stringContaining('npx airlock token create'));
    expect(refusal).toHaveProperty('message', expect.stringContaining('Connect screen'));
  });

  it("names the settings file's problem for a token it does not know while the file is broken, and only then", () => {
    const problem = 'airlock.json is not valid JSON: unexpected end of string at line 9, column 22. Fix the file by hand.';
    const authenticator = createClientAuthenticator({ snapshot: config }, undefined, () => problem);
    expect(authenticator.authenticate({ authorization: `Bearer ${generateToken()}` })).toHaveProperty(
      'message',
      `Airlock could not read its settings, where client tokens are kept: ${problem}`,
    );
    // A token the last good settings hold still works; no token, a request id or a gateway key is told as before.
    expect(authenticator.authenticate({ 'x-api-key': pinnedToken })).toMatchObject({ tokenName: 'claude' });
    expect(authenticator.authenticate({})).toHaveProperty('message', expect.stringMatching(/^No Airlock client token was sent/));
    expect(authenticator.authenticate({ authorization: `Bearer ${newRequestId()}` })).toHaveProperty(
      'message',
      expect.stringMatching(/^This is an Airlock request id/),
    );
    expect(authenticator.authenticate({ authorization: 'Bearer sk-something' })).toHaveProperty(
      'message',
      expect.stringMatching(/^The key sent is not an Airlock client token/),
    );
  });

  it('when tokens are not required, anyone is anonymous but a valid token still pins', () => {
    const open = updateSettings(config(), { requireClientToken: false });
    const authenticator = createClientAuthenticator({ snapshot: () => open });
    expect(authenticator.authenticate({})).toEqual(ANONYMOUS_IDENTITY);
    expect(authenticator.authenticate({ authorization: 'Bearer whatever' })).toEqual(ANONYMOUS_IDENTITY);
    expect(authenticator.authenticate({ 'x-api-key': pinnedToken })).toEqual({
      tokenName: 'claude',
      pinnedProfileId: 'b',
      defaultModel: null,
    });
  });
});
