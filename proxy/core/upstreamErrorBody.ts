import { isRecord, parsedRecord } from './isRecord.ts';
/**
 * Reads the error a gateway put in a response body. The contract does not fix its schema (docs/gateway-spec.md §7),
 * so the common shapes are accepted: `{error:{message,code,type}}`, `{error:"…"}`, `{message,code}`,
 * `{detail:"…"}`, and those servers give that are not OpenAI's: FastAPI's validation list
 * `{detail:[{loc,msg}]}`, Google's error wrapped in a list `[{error:{…}}]`, and Cloudflare's
 * envelope `{success:false,errors:[{code,message}]}`.
 */
export interface UpstreamErrorDetail {
  message: string | null;
  /** `code`, else `type`: what the client is shown as the gateway's code. */
  code: string | null;
  /** Both, as sent: relays put the meaning in either (LiteLLM's code is the status, its type the reason). */
  codes: string[];
}

const EMPTY: UpstreamErrorDetail = { message: null, code: null, codes: [] };
/** Past this, a body is no error message worth parsing (error bodies are small). */
const MAX_ERROR_BODY_CHARS = 64 * 1024;

export function extractUpstreamError(bodyText: string): UpstreamErrorDetail {
  if (bodyText.length > MAX_ERROR_BODY_CHARS) return EMPTY;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return EMPTY;
  }
  const body = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!isRecord(body)) return EMPTY;
  const error = body['error'];
  if (typeof error === 'string') {
    const code = textOf(body['code']);
    return { message: error, code, codes: code === null ? [] : [code] };
  }
  const listed = Array.isArray(body['errors']) ? body['errors'][0] : undefined;
  const source = isRecord(error) ? error : isRecord(listed) ? listed : body;
  const code = textOf(source['code']);
  const type = textOf(source['type']);
  return {
    message: textOf(source['message']) ?? textOf(source['detail']) ?? validationText(source['detail']) ?? textOf(source['msg']),
    code: code ?? type,
    codes: [code, type].filter((value) => value !== null),
  };
}

/** True when a 2xx JSON body carries only an error (some gateways answer errors with 200). */
export function isErrorOnlyBody(bodyText: string): boolean {
  if (bodyText.length > MAX_ERROR_BODY_CHARS) return false;
  const parsed = parsedRecord(bodyText);
  return parsed !== null && parsed['error'] != null && !('choices' in parsed) && !('data' in parsed) && !('output' in parsed);
}

/** FastAPI's 422 lists each field it refused as `{loc, msg}`: said as `body.messages.0.content: field required`. */
function validationText(detail: unknown): string | null {
  if (!Array.isArray(detail)) return null;
  const said = detail.filter(isRecord).map((item) => {
    const msg = textOf(item['msg']) ?? JSON.stringify(item);
    return Array.isArray(item['loc']) ? `${item['loc'].join('.')}: ${msg}` : msg;
  });
  return said.length > 0 ? said.join('; ') : null;
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return null;
}
