import type { ProfileTestResult, ProfileTestStep } from '../../contracts/profileViews.ts';
import { networkCodeHint } from '../../core/clientError.ts';
import { explainError } from '../../core/errorClass.ts';
import { osCaStoreTrusted } from '../../core/osCaStore.ts';
import type { UpstreamTarget } from '../../contracts/ports.ts';
import { modelIdsFrom } from '../../forward/gatewayModels.ts';
import { chatBodyWithMaxCompletionTokens, refusesMaxTokens } from '../../protocols/chat/maxTokens.ts';
import { probeGateway, type ProbeResult } from './gatewayProbe.ts';

/** The one-token chat: the cheapest request that proves a model answers for this account. */
export function oneTokenChat(model: string): Record<string, unknown> {
  // No temperature: OpenAI's reasoning models refuse any but their default.
  return { model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 1, stream: false };
}

/**
 * A probe explained in the gateway contract's terms (docs/gateway-spec.md): a 200 on /models proves host, route and key, and nothing
 * about any model (section 4.1); a chat answer proves that one model id works; failures get the
 * meaning and fix of their class (section 7).
 */
export function testStep(
  name: ProfileTestStep['name'],
  probe: ProbeResult,
  detail: { modelCount?: number; model?: string },
): ProfileTestStep {
  const base = { name, status: probe.status, errorClass: probe.errorClass, durationMs: probe.durationMs };
  if (probe.errorClass === null && probe.status !== null) {
    const meaning =
      name === 'models'
        ? `The gateway listed ${detail.modelCount ?? 0} models: host, route and key work. This does not prove that any model, streaming or tool calls work; test a model next.`
        : `Model ${detail.model ?? ''} answered a one-token chat: this id works for this account (streaming, tools and images are checked separately, per model).`;
    return { ...base, ok: true, meaning, fix: null };
  }
  const errorClass = probe.errorClass ?? 'network';
  const explained = explainError(errorClass, probe.networkCode);
  const hint = errorClass === 'network' ? networkCodeHint(probe.networkCode, osCaStoreTrusted()) : undefined;
  return {
    ...base,
    errorClass,
    ok: false,
    meaning: `${explained.meaning}.`,
    fix: hint === undefined ? explained.fix : `${hint} ${explained.fix}`,
  };
}

export async function runProfileTest(target: UpstreamTarget, model: string | undefined): Promise<ProfileTestResult> {
  const modelsProbe = await probeGateway(target, 'GET', '/models');
  const models = modelsProbe.errorClass === null ? modelIdsFrom(modelsProbe.bodyText, [target.apiKey]) : [];
  const steps = [testStep('models', modelsProbe, { modelCount: models.length })];
  if (model) {
    const chat = oneTokenChat(model);
    let chatProbe = await probeGateway(target, 'POST', '/chat/completions', chat);
    // A model that takes only max_completion_tokens (OpenAI's reasoning models) refused the test for its name alone.
    const renamed = refusesMaxTokens(chatProbe.status ?? 0, chatProbe.bodyText) ? chatBodyWithMaxCompletionTokens(chat) : null;
    if (renamed !== null) chatProbe = await probeGateway(target, 'POST', '/chat/completions', renamed);
    steps.push(testStep('chat', chatProbe, { model }));
  }
  return { steps, models };
}
