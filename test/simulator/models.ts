/** Realistic ids of the kinds a gateway account lists (docs/gateway-spec.md §2: the id is what `model` takes). */
export const DEFAULT_MODEL_IDS: readonly string[] = [
  'gpt-4o-mini',
  'deepseek-chat',
  'qwen-plus',
  'claude-sonnet-4-5',
  'glm-4.6',
  'qwen-vl-max',
  'text-embedding-3-small',
];

const OWNER_BY_PREFIX: ReadonlyArray<readonly [string, string]> = [
  ['gpt-', 'openai'],
  ['text-embedding-', 'openai'],
  ['deepseek-', 'deepseek'],
  ['qwen-', 'alibaba'],
  ['claude-', 'anthropic'],
  ['glm-', 'zhipu'],
];

export function ownerOf(modelId: string): string {
  return OWNER_BY_PREFIX.find(([prefix]) => modelId.startsWith(prefix))?.[1] ?? 'system';
}

export interface ModelRecord {
  id: string;
  object: 'model';
  owned_by: string;
}

export function modelList(modelIds: readonly string[]): { object: 'list'; data: ModelRecord[] } {
  return { object: 'list', data: modelIds.map((id) => ({ id, object: 'model', owned_by: ownerOf(id) })) };
}
