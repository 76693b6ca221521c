import { describe, expect, it } from 'vitest';
import { contentCodingOf, decodedHeaders, decoderFor } from '../../../proxy/forward/answerDecoding.ts';

describe('contentCodingOf', () => {
  it.each<[string, Record<string, string | string[] | undefined>, string | null]>([
    ['no header', {}, null],
    ['identity', { 'content-encoding': 'identity' }, null],
    ['blank', { 'content-encoding': ' ' }, null],
    ['gzip in capitals, padded', { 'content-encoding': ' GZIP ' }, 'gzip'],
    ['two header lines', { 'content-encoding': ['gzip', 'br'] }, 'gzip, br'],
  ])('%s', (_label, headers, expected) => {
    expect(contentCodingOf(headers)).toBe(expected);
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

describe('decodedHeaders', () => {
  it('drops what described the coded bytes (coding, length, digest, ETag), and keeps the rest', () => {
    const coded = {
      'content-encoding': 'gzip',
      'content-length': '12',
      'content-md5': 'Q2h',
      etag: '"v1"',
      'content-type': 'text/plain',
      'x-request-id': 'r1',
    };
    expect(decodedHeaders(coded)).toEqual({
      'content-type': 'text/plain',
      'x-request-id': 'r1',
    });
  });
});
