import { describe, expect, it } from 'vitest';
import { EMBEDDING_DIMENSIONS, embeddingsBody, embedText, validateEmbeddingsRequest } from '../../simulator/embeddings.ts';

const known = new Set(['text-embedding-3-small']);

describe('embeddings', () => {
  it.each([
    [{ input: 'a' }, 400, 'missing_required_parameter'],
    [{ model: 'text-embedding-3-small' }, 400, 'invalid_request'],
    [{ model: 'text-embedding-3-small', input: [] }, 400, 'invalid_request'],
    [{ model: 'text-embedding-3-small', input: [1, 2] }, 400, 'invalid_request'],
    [{ model: 'nope', input: 'a' }, 404, 'model_not_found'],
  ])('refuses %j', (json, status, code) => {
    expect(validateEmbeddingsRequest(json, known)).toMatchObject({ ok: false, status, body: { error: { code } } });
  });

  it('gives each input a stable unit vector', () => {
    const vector = embedText('hello');
    expect(vector).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
    expect(embedText('hello')).toEqual(vector);
    expect(embedText('hello!')).not.toEqual(vector);
  });

  it('answers in the list shape with usage', () => {
    const validated = validateEmbeddingsRequest({ model: 'text-embedding-3-small', input: ['abcd', 'abcdefgh'] }, known);
    if (!validated.ok) throw new Error('expected a valid request');
    expect(embeddingsBody(validated.value)).toMatchObject({
      object: 'list',
      model: 'text-embedding-3-small',
      data: [
        { object: 'embedding', index: 0 },
        { object: 'embedding', index: 1 },
      ],
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
  });
});
