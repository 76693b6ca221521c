import OpenAI from 'openai';

/**
 * A non-streamed chat through Airlock with the OpenAI SDK as scripts use it (its default two
 * retries, which obey `x-should-retry`): the SDK's error, or null when the chat succeeded.
 */
export async function sdkChatFailure(proxyUrl: string): Promise<InstanceType<typeof OpenAI.APIError> | null> {
  const client = new OpenAI({ baseURL: `${proxyUrl}/v1`, apiKey: 'alk_client', maxRetries: 2 });
  return client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).then(
    () => null,
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );
}
