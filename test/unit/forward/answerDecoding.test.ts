import { describe, expect, it } from 'vitest';
import { answerCodingOf, contentCodingOf, decoderFor } from '../../../proxy/forward/answerDecoding.ts';

describe('contentCodingOf', () => {
  it.each<[string, Record<string, string | string[] | undefined>, string | null]>([
    ['no header', {}, null],
    ['identity', { 'content-encoding': 'identity' }, null],
    ['blank', { 'content-encoding': ' ' }, null],
    ['gzip in capitals, padded', { 'content-encoding': ' GZIP ' }, 'gzip'],
    ['two header lines', { 'content-encoding': ['gzip', 'br'] }, 'gzip, br'],
    // One rule for requests and answers: a label that names no coding labels plain bytes.
    ['a character set', { 'content-encoding': 'UTF-8' }, null],
    ['none', { 'content-encoding': 'none' }, null],
  ])('%s', (_label, headers, expected) => {
    expect(contentCodingOf(headers)).toBe(expected);
  });
});

describe('answerCodingOf', () => {
  it.each<[string, string | null]>([
    ['utf-8', null],
    [' UTF-8 ', null],
    ['utf8', null],
    ['iso-8859-1', null],
    ['identity', null],
    ['none', null],
    ['None', null],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['x-snappy', 'x-snappy'],
    ['gzip, utf-8', 'gzip, utf-8'],
  ])('%s is %s', (coding, expected) => {
    expect(answerCodingOf({ 'content-encoding': coding }).coding).toBe(expected);
  });

  it('passes a plain answer on without a label that names no coding; other headers stay', () => {
    const labelled = { 'content-encoding': 'utf-8', 'content-length': '12', 'content-type': 'application/json' };
    expect(answerCodingOf(labelled).headers).toEqual({ 'content-length': '12', 'content-type': 'application/json' });
    const plain = { 'content-type': 'application/json' };
    expect(answerCodingOf(plain)).toEqual({ coding: null, headers: plain });
    expect(answerCodingOf(plain).headers).toBe(plain);
  });

  it('passes a coded answer on without what described the coded bytes (coding, length, digest, ETag), and keeps the rest', () => {
    const coded = {
      'content-encoding': 'gzip',
      'content-length': '12',
      'content-md5': 'Q2h',
      etag: '"v1"',
      'content-type': 'text/plain',
      'x-request-id': 'r1',
    };
    expect(answerCodingOf(coded)).toEqual({ coding: 'gzip', headers: { 'content-type': 'text/plain', 'x-request-id': 'r1' } });
  });
});

describe('decoderFor', () => {
  it.each(['gzip', 'x-gzip', 'deflate', 'br', 'zstd'])('decodes %s', (coding) => {
    expect(decoderFor(coding).readable).toBe(true);
  });

  it.each(['gzip, br', 'x-snappy', 'compress'])('refuses %s, naming it', (coding) => {
    expect(() => decoderFor(coding)).toThrow(`content-encoding: ${coding}`);
  });
});
