import { describe, expect, it } from 'vitest';
import { resolveUpstreamModel, wildcardMatches } from '../../../proxy/forward/modelRouting.ts';

const aliases = { 'claude-sonnet-4-5': 'gw-sonnet', 'claude-haiku-exact': 'gw-alias-haiku' };
const routes = [
  { pattern: 'claude-*haiku*', target: 'gw-cheap' },
  { pattern: 'claude-opus-*', target: 'gw-strong' },
  { pattern: 'claude-*', target: 'gw-default-claude' },
];

describe('resolveUpstreamModel', () => {
  it.each([
    { requested: 'claude-sonnet-4-5', fallback: null, model: 'gw-sonnet', rule: 'alias' },
    { requested: 'claude-haiku-exact', fallback: null, model: 'gw-alias-haiku', rule: 'alias' },
    { requested: 'claude-3-5-haiku-20241022', fallback: null, model: 'gw-cheap', rule: 'route' },
    { requested: 'CLAUDE-HAIKU-4-5', fallback: null, model: 'gw-cheap', rule: 'route' },
    { requested: 'claude-opus-4-1', fallback: null, model: 'gw-strong', rule: 'route' },
    { requested: 'claude-sonnet-4-6', fallback: null, model: 'gw-default-claude', rule: 'route' },
    { requested: 'gpt-4o-mini', fallback: 'gw-token-default', model: 'gpt-4o-mini', rule: 'as-is' },
    { requested: null, fallback: 'gw-token-default', model: 'gw-token-default', rule: 'client-default' },
    { requested: '', fallback: 'gw-token-default', model: 'gw-token-default', rule: 'client-default' },
    { requested: null, fallback: null, model: null, rule: 'as-is' },
    { requested: 'toString', fallback: null, model: 'toString', rule: 'as-is' },
  ])('$requested (token default $fallback) -> $model by $rule', ({ requested, fallback, model, rule }) => {
    expect(resolveUpstreamModel({ requestedModel: requested, aliases, routes, clientDefaultModel: fallback })).toEqual({
      upstreamModel: model,
      rule,
    });
  });

  it('uses the first matching route, not the most specific one', () => {
    const ordered = [
      { pattern: '*', target: 'catch-all' },
      { pattern: 'claude-opus-*', target: 'gw-strong' },
    ];
    expect(resolveUpstreamModel({ requestedModel: 'claude-opus-4', aliases: {}, routes: ordered }).upstreamModel).toBe('catch-all');
  });
});

describe('wildcardMatches', () => {
  it.each([
    ['claude-*haiku*', 'claude-haiku', true],
    ['claude-*haiku*', 'claude-3-haiku-x', true],
    ['claude-*haiku*', 'xclaude-haiku', false],
    ['claude-opus-*', 'claude-opus-', true],
    ['claude-opus-*', 'claude-sonnet-4', false],
    ['gpt-4.1', 'gpt-4x1', false],
    ['gpt-4.1', 'GPT-4.1', true],
    ['a+b(c)', 'a+b(c)', true],
    ['model', 'model-extra', false],
    ['*', '', true],
  ])('%s matches %s: %s', (pattern, name, expected) => {
    expect(wildcardMatches(pattern, name)).toBe(expected);
  });
});
