/** OpenAI-shaped error bodies (the gateway contract does not fix the schema; this is what clients parse). */
export interface SimulatedErrorBody {
  error: { message: string; type: string; code: string; param: string | null };
}

export function errorBody(message: string, type: string, code: string, param: string | null = null): SimulatedErrorBody {
  return { error: { message, type, code, param } };
}

export function invalidApiKey(): SimulatedErrorBody {
  return errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
}

export function invalidRequest(message: string, code: string, param: string | null = null): SimulatedErrorBody {
  return errorBody(message, 'invalid_request_error', code, param);
}

export function modelNotFound(model: string): SimulatedErrorBody {
  return errorBody(
    `The model \`${model}\` does not exist or you do not have access to it.`,
    'invalid_request_error',
    'model_not_found',
    'model',
  );
}

const DEFAULT_ERROR_BY_STATUS: Readonly<Record<number, readonly [message: string, type: string, code: string]>> = {
  400: ['Invalid request.', 'invalid_request_error', 'invalid_request'],
  401: ['Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'],
  404: ['The model does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found'],
  429: ['Rate limit reached for requests.', 'rate_limit_error', 'rate_limit_exceeded'],
  500: ['The server had an error while processing your request.', 'server_error', 'internal_error'],
  502: ['Bad gateway: no valid response from the upstream model.', 'server_error', 'bad_gateway'],
  503: ['The model is overloaded. Please try again later.', 'server_error', 'service_unavailable'],
  504: ['Gateway timeout while waiting for the upstream model.', 'server_error', 'gateway_timeout'],
};

/** The body a scripted status fault sends when the test gives none. */
export function defaultErrorForStatus(status: number): SimulatedErrorBody {
  const [message, type, code] = DEFAULT_ERROR_BY_STATUS[status] ?? [`Simulated HTTP ${status}.`, 'server_error', `http_${status}`];
  return errorBody(message, type, code);
}

/** The event a broken gateway stream carries before it ends (docs/gateway-spec.md §4.2: "an error event may precede an interruption"). */
export function streamErrorEvent(): SimulatedErrorBody {
  return errorBody('The upstream model stopped responding mid-stream.', 'server_error', 'upstream_error');
}
