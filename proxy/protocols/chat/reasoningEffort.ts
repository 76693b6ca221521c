import { errorObjectOf } from './errorObject.ts';

/**
 * `reasoning_effort` on a translated chat request. Chat gateways differ on a model that does not
 * take it, or a level of it the model does not have: OpenAI and LiteLLM (without drop_params)
 * refuse the request with a 400 naming the parameter, OpenRouter and LiteLLM with drop_params
 * take it and ignore it, relays (new-api) pass on what their channel says. Which models take which
 * levels is listed nowhere a gateway states, so it is sent, and a 400 naming it, which ran nothing
 * and cost nothing, tells Airlock to send the request again without it (requestWithoutRefusedEffort)
 * and to leave that level out of the model's later requests (forward/reasoningEffortRefusals.ts).
 */

export const REASONING_EFFORT_FIELD = 'reasoning_effort';

/** What the log says of a request sent again without the parameter. */
export const RESENT_WITHOUT_REASONING_EFFORT_NOTE = 'resent without reasoning_effort: the gateway refused it for this model (400)';
/** What the log says when the request without it was refused again: the first 400 was about something else. */
export const RESENT_AND_REFUSED_AGAIN_NOTE =
  'resent without reasoning_effort and refused again (400): the refusal was not of reasoning_effort, which is still sent';

/**
 * Sets the effort as the body's last member, after `stream` and `stream_options`: a refusal can
 * then take it off the bytes as sent (bytesWithoutReasoningEffort), with nothing serialized again.
 */
export function setReasoningEffortLast(chatBody: Record<string, unknown>, effort: string): void {
  delete chatBody[REASONING_EFFORT_FIELD];
  chatBody[REASONING_EFFORT_FIELD] = effort;
}

/**
 * A 400 that refuses the parameter itself, or its level: the error's `param` names it (OpenAI's
 * `unsupported_parameter` and `unsupported_value`), or its message says it is unsupported, not
 * supported, unknown or unrecognized right where it names it (OpenAI's wordings, LiteLLM's
 * UnsupportedParamsError listing it). A body that merely holds the name (a list of the parameters
 * a model takes, the request echoed or quoted in an error about something else) is no refusal: it
 * would drop the user's effort for the model's every later request.
 */
export function refusesReasoningEffort(status: number, bodyText: string): boolean {
  if (status !== 400 || !bodyText.includes(REASONING_EFFORT_FIELD)) return false;
  const error = errorObjectOf(bodyText);
  if (error === null) return REFUSAL_WORDINGS.some((wording) => wording.test(bodyText));
  if (error['param'] === REASONING_EFFORT_FIELD) return true;
  const message = error['message'];
  return typeof message === 'string' && REFUSAL_WORDINGS.some((wording) => wording.test(message));
}

/** The name as an error quotes it: bare, or in quotes or backticks. */
const QUOTED_FIELD = `['"\`]?${REASONING_EFFORT_FIELD}['"\`]?`;
const REFUSAL_WORDINGS = [
  // "Unsupported parameter: 'reasoning_effort' ...", "Unsupported value: 'reasoning_effort' does not support 'none'",
  // "Unrecognized request argument supplied: reasoning_effort", "Unknown parameter: reasoning_effort".
  new RegExp(
    `\\b(?:unsupported|unknown|unrecognized)(?: request)? (?:parameter|param|argument|field|value)s?(?: supplied)?:? ${QUOTED_FIELD}(?![\\w.])`,
    'i',
  ),
  // "'reasoning_effort' is not supported", "reasoning_effort is unsupported".
  new RegExp(`(?<![\\w.])${QUOTED_FIELD} (?:is|are) (?:not supported|unsupported)`, 'i'),
  // LiteLLM: "does not support parameters: ['logit_bias', 'reasoning_effort']": the list right after the words.
  new RegExp(`does not support param(?:eter)?s?: \\[[^\\]]*['"]${REASONING_EFFORT_FIELD}['"]`, 'i'),
];

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

/**
 * A translated chat request's bytes again without its `reasoning_effort`, when the gateway's answer
 * refused it (the trailing member cut), and the level refused. Null when the answer is another, or
 * the request sent no effort.
 */
export function requestWithoutRefusedEffort(
  sentBody: Buffer,
  answer: { status: number; bodyText: string },
): { body: Buffer; refusedEffort: string } | null {
  if (!refusesReasoningEffort(answer.status, answer.bodyText)) return null;
  const without = bytesWithoutReasoningEffort(sentBody);
  if (without === null) return null;
  return { body: without.body, refusedEffort: without.effort };
}
