import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listSourceFiles } from './importScanner.ts';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Airlock's own answer headers (the request id, who answered) wait beside a forwarded answer and are
 * written with its head by writeAnswerHead (forward/answerHead.ts): a reply path on the forwarding
 * side that wrote its head with Node's writeHead or setHeader would go out without them. The wire
 * check of every kind of reply is test/integration/forward/ownRequestId.test.ts; this one names the file.
 */
describe("a forwarded answer's head", () => {
  it('is written through writeAnswerHead on every reply path of forward/ and the request dispatch', () => {
    const files = listSourceFiles(projectRoot, ['proxy']).filter(
      (file) => (file.startsWith('proxy/forward/') && file !== 'proxy/forward/answerHead.ts') || file === 'proxy/http/requestDispatch.ts',
    );
    expect(files).toContain('proxy/forward/relay.ts');
    // A head written implicitly (a status set, then write or end) or through Express's helpers loses them too.
    const writing = files.filter((file) =>
      /\.(writeHead|setHeader|appendHeader)\(|\bres\.(status|json|send)\(|\.statusCode\s*=[^=]/.test(
        readFileSync(`${projectRoot}${file}`, 'utf8'),
      ),
    );
    expect(writing).toEqual([]);
  });
});
