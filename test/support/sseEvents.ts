import { createParser } from 'eventsource-parser';
import type { StreamAssembler, StreamedAnswer } from '../../proxy/protocols/adapter.ts';

/** A whole stream's text put together by a protocol's assembler, its events added as they are parsed. */
export function assembled(assembler: StreamAssembler, stream: string): StreamedAnswer {
  createParser({ onEvent: (event) => assembler.add(event) }).feed(stream);
  return assembler.result();
}
