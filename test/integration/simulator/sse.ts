/** The `data:` payloads of a complete SSE body, in order (test helper; the body is already whole). */
export function sseData(body: string): string[] {
  return body
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
}

export interface ChunkJson {
  object?: string;
  model?: string;
  choices?: Array<{
    delta: {
      role?: string;
      content?: string | null;
      tool_calls?: Array<{ index: number; id?: string; function: { name?: string; arguments: string } }>;
    };
    finish_reason: string | null;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  error?: { message: string; code: string };
}

export function parsedChunks(body: string): ChunkJson[] {
  return sseData(body)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as ChunkJson);
}

export function contentOf(chunks: readonly ChunkJson[]): string[] {
  return chunks.flatMap((chunk) =>
    (chunk.choices ?? [])
      .map((choice) => choice.delta.content)
      .filter((content): content is string => typeof content === 'string' && content !== ''),
  );
}
