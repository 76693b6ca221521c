/**
 * `reasoning_effort` on a translated chat request. Chat gateways differ on a model that does not
 * take it, or a level of it the model does not have: OpenAI and LiteLLM (without drop_params)
 * refuse the request with a 400 naming the parameter, OpenRouter and LiteLLM with drop_params
 * take it and ignore it, relays (new-api) pass on what their channel says. Which models take which
 * levels is listed nowhere a gateway states, so it is sent, and a 400 naming it, which ran nothing
 * and cost nothing, tells Airlock to send the request again without it and to leave that level
 * out of the model's later requests (forward/reasoningEffortRefusals.ts).
 */

export const REASONING_EFFORT_FIELD = 'reasoning_effort';

/** What the log says of a request sent again without the parameter. */
export const RESENT_WITHOUT_REASONING_EFFORT_NOTE = 'resent without reasoning_effort: the gateway refused it for this model (400)';

/**
 * Sets the effort as the body's last member, after `stream` and `stream_options`: a refusal can
 * then take it off the bytes as sent (bytesWithoutReasoningEffort), with nothing serialized again.
 */
export function setReasoningEffortLast(chatBody: Record<string, unknown>, effort: string): void {
  delete chatBody[REASONING_EFFORT_FIELD];
  chatBody[REASONING_EFFORT_FIELD] = effort;
}

/** A 400 whose body names the parameter: the gateway or its model does not take it. */
export function refusesReasoningEffort(status: number, bodyText: string): boolean {
  return status === 400 && bodyText.includes(REASONING_EFFORT_FIELD);
}

/** Longest tail a translated body's effort member takes (`,"reasoning_effort":"<level>"}`), with room for any level. */
const EFFORT_TAIL_MAX_BYTES = 64;
const EFFORT_TAIL = /,"reasoning_effort":"([a-z_]{1,20})"\}$/;

/** The sent chat body without its trailing effort member, and the level it had; null when it does not end with one. */
export function bytesWithoutReasoningEffort(body: Buffer): { body: Buffer; effort: string } | null {
  const tail = body.subarray(Math.max(0, body.length - EFFORT_TAIL_MAX_BYTES)).toString('latin1');
  const match = EFFORT_TAIL.exec(tail);
  if (match === null) return null;
  return { body: Buffer.concat([body.subarray(0, body.length - match[0].length), Buffer.from('}')]), effort: match[1]! };
}
