import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOwnHeader, writeAnswerHead } from '../../../proxy/forward/answerHead.ts';

/** What each case does to the response before its head goes out: run by the server for the request's path. */
let answerWith: (res: ServerResponse) => void = () => undefined;
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((_req, res) => {
    answerWith(res);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** The header lines as received, without Node's own framing (date, its `Connection: close`, keep-alive). */
function headLines(answer: (res: ServerResponse) => void): Promise<{ status: number; lines: string[] }> {
  answerWith = answer;
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      const lines: string[] = [];
      for (let index = 0; index < res.rawHeaders.length; index += 2) lines.push(`${res.rawHeaders[index]}: ${res.rawHeaders[index + 1]}`);
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          lines: lines.filter((line) => !/^(date|keep-alive|transfer-encoding):/i.test(line) && line !== 'Connection: close'),
        }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('writeAnswerHead', () => {
  it.each<[string, (res: ServerResponse) => void, string[]]>([
    ['no own header: the headers as given', (res) => writeAnswerHead(res, 201, { 'x-a': '1' }), ['x-a: 1']],
    [
      'own headers first, in the order set, then the answer headers',
      (res) => {
        setOwnHeader(res, 'x-airlock-request-id', 'req');
        setOwnHeader(res, 'x-airlock-answered-by', 'p/m');
        writeAnswerHead(res, 201, { 'x-a': '1', 'x-b': ['2', '3'] });
      },
      ['x-airlock-request-id: req', 'x-airlock-answered-by: p/m', 'x-a: 1', 'x-b: 2', 'x-b: 3'],
    ],
    [
      'an own header set again: its new value in its first place',
      (res) => {
        setOwnHeader(res, 'x-airlock-request-id', 'req');
        setOwnHeader(res, 'x-airlock-answered-by', 'first');
        setOwnHeader(res, 'x-airlock-request-id', 'again');
        writeAnswerHead(res, 201);
      },
      ['x-airlock-request-id: again', 'x-airlock-answered-by: first'],
    ],
    [
      'a header set through Node since: after the own ones, before the answer headers',
      (res) => {
        setOwnHeader(res, 'x-airlock-request-id', 'req');
        res.setHeader('connection', 'close');
        writeAnswerHead(res, 201, { 'x-a': '1' });
      },
      ['x-airlock-request-id: req', 'connection: close', 'x-a: 1'],
    ],
    [
      "an answer header of an own header's name: its value, in the own header's place",
      (res) => {
        setOwnHeader(res, 'x-airlock-request-id', 'req');
        writeAnswerHead(res, 201, { 'x-a': '1', 'x-airlock-request-id': 'gateway' });
      },
      ['x-airlock-request-id: gateway', 'x-a: 1'],
    ],
    [
      'names differing in case only: one, as Node merges them',
      (res) => {
        setOwnHeader(res, 'x-airlock-request-id', 'req');
        writeAnswerHead(res, 201, { 'x-a': 'lower', 'X-A': 'upper' });
      },
      ['x-airlock-request-id: req', 'X-A: upper'],
    ],
  ])('%s', async (_label, answer, lines) => {
    const head = await headLines(answer);
    expect(head.status).toBe(201);
    expect(head.lines.filter((line) => !line.startsWith('content-length') && !line.startsWith('Content-Length'))).toEqual(lines);
  });
});
