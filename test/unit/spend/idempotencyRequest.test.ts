import { describe, expect, it } from 'vitest';
import { idempotencyKeyOf, isSideEffectRequest } from '../../../proxy/spend/idempotencyRequest.ts';

describe('idempotencyKeyOf', () => {
  it.each([
    { headers: { 'idempotency-key': 'abc' }, key: 'abc' },
    { headers: { 'x-idempotency-key': ' abc ' }, key: 'abc' },
    { headers: { 'x-task-id': 'task-1' }, key: 'task-1' },
    { headers: { 'idempotency-key': 'first', 'x-task-id': 'second' }, key: 'first' },
    { headers: { 'idempotency-key': '  ', 'x-task-id': 'second' }, key: 'second' },
    { headers: { 'x-task-id': ['a', 'b'] }, key: 'a' },
    { headers: { 'content-type': 'application/json' }, key: null },
  ])('$headers -> $key', ({ headers, key }) => {
    expect(idempotencyKeyOf(headers)).toBe(key);
  });
});

describe('isSideEffectRequest', () => {
  it.each([
    { method: 'POST', path: '/images/generations', sideEffect: true },
    { method: 'POST', path: '/images/edits?x=1', sideEffect: true },
    { method: 'post', path: '/videos', sideEffect: true },
    { method: 'POST', path: '/video/generations', sideEffect: true },
    { method: 'POST', path: '/kling/Videos/text2video', sideEffect: true },
    { method: 'GET', path: '/videos/task-1', sideEffect: false },
    { method: 'POST', path: '/chat/completions', sideEffect: false },
    { method: 'POST', path: '/embeddings?model=images', sideEffect: false },
    { method: 'POST', path: '/imagesearch', sideEffect: false },
  ])('$method $path -> $sideEffect', ({ method, path, sideEffect }) => {
    expect(isSideEffectRequest(method, path)).toBe(sideEffect);
  });
});
