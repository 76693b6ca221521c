/** Translation options of a gateway that takes every reasoning level and `max_tokens`: tests override one at a time. */
export const translationOptions = {
  upstreamModel: 'gw-model',
  includeUsage: true,
  refusedReasoningEfforts: [] as string[],
  maxTokensRefused: false,
  gatewayTag: 'gw',
};
