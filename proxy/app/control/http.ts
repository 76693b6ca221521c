import type { ErrorRequestHandler } from 'express';
import { ZodError } from 'zod';
import type { ApiErrorBody, ApiErrorCode } from '../../contracts/controlApi.ts';
import { PriceImportError } from '../../spend/pricesIo.ts';
import { ConnectError } from '../connect/toolAdapter.ts';
import { ConfigEditError } from '../profiles/configMutations.ts';
import { ConfigBrokenError, ConfigBusyError, ConfigInvalidError, ConfigLinkError } from '../profiles/configStore.ts';
import { KeychainUnavailableError } from '../../contracts/secretStore.ts';
import type { NamedCommand } from '../../contracts/cli.ts';
import { TraceHeaderInputError } from '../export/traceHeaders.ts';
import { DataDirUnwritableError } from '../dataDir.ts';
import { isDamageError, RESTART_FOR_DAMAGED_LOG } from '../../store/logCheck.ts';
import { LogReaderUnavailableError } from '../../store/read/logReader.ts';

const STATUS_OF: Record<ApiErrorCode, number> = {
  unauthorized: 401,
  not_found: 404,
  invalid: 400,
  conflict: 409,
  keychain_unavailable: 503,
  unavailable: 503,
  internal: 500,
};

/** A failure the window shows as-is: the message is for people and never holds a secret. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly field: string | undefined;

  constructor(code: ApiErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.field = field;
  }
}

export function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} was not found.`);
}

/** The API error body for any failure the modules below the routes raise; `command` names this Airlock in a suggested command. */
export function toApiError(error: unknown, command: NamedCommand): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const field = issue?.path.join('.') || undefined;
    return new ApiError('invalid', issue ? `${field ? `${field}: ` : ''}${issue.message}` : 'Invalid request.', field);
  }
  if (error instanceof ConnectError) return new ApiError(error.code, error.message);
  if (error instanceof TraceHeaderInputError) return new ApiError('invalid', `${error.field}: ${error.message}`, error.field);
  if (error instanceof ConfigEditError)
    return new ApiError(
      /^no (profile|client token|trace export header)/.test(error.message) ? 'not_found' : 'conflict',
      error.messageFor(command),
    );
  if (error instanceof ConfigInvalidError || error instanceof PriceImportError) return new ApiError('invalid', error.message);
  if (error instanceof ConfigBrokenError || error instanceof ConfigLinkError) return new ApiError('unavailable', error.message);
  if (error instanceof ConfigBusyError) return new ApiError('conflict', error.message);
  if (error instanceof DataDirUnwritableError) return new ApiError('unavailable', error.message);
  // The window shows it where the read's figures would be; the next read starts a new reader thread.
  if (error instanceof LogReaderUnavailableError) return new ApiError('unavailable', error.message);
  if (error instanceof KeychainUnavailableError) return new ApiError('keychain_unavailable', error.message);
  // The log that met the damage told the user and marked it (SqliteRequestLog.read): SQLite's words and "a fault in Airlock" would both mislead.
  if (isDamageError(error))
    return new ApiError(
      'unavailable',
      `The request log is damaged, so this cannot be read from it; forwarding goes on. ${RESTART_FOR_DAMAGED_LOG}.`,
    );
  // The router decodes path parameters (a request id): a broken %-escape is the address's fault.
  if (error instanceof URIError) return new ApiError('invalid', 'The address holds a broken %-escape (% and two hex digits).');
  if (typeof error === 'object' && error !== null && 'type' in error && (error as { type: unknown }).type === 'entity.parse.failed') {
    return new ApiError('invalid', 'The request body is not valid JSON.');
  }
  if (typeof error === 'object' && error !== null && 'type' in error && (error as { type: unknown }).type === 'entity.too.large') {
    // A replay's edited body is the one large thing the window or the CLI sends here.
    return new ApiError('invalid', 'The request to Airlock is larger than its control API takes (6 MB). Send a smaller body.', 'body');
  }
  return new ApiError('internal', 'Airlock failed to do this; its notices (in its window, or on the terminal it runs in) say why.');
}

/**
 * Answers a failure in the API's shape; one the modules below did not expect is said to `reportUnexpected`, which masks it.
 * A response its client already closed gets neither: the failure is the client leaving (a replay's
 * caller pressing Ctrl-C throws on its aborted signal), not a fault in Airlock, and no one reads the answer.
 */
export function apiErrorHandler(reportUnexpected: (message: string) => void, command: NamedCommand): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (res.destroyed && !res.writableFinished) return;
    const apiError = toApiError(error, command);
    if (apiError.code === 'internal')
      reportUnexpected(`the control API failed unexpectedly: ${error instanceof Error ? error.message : 'unknown error'}`);
    const body: ApiErrorBody = {
      error: { code: apiError.code, message: apiError.message, ...(apiError.field ? { field: apiError.field } : {}) },
    };
    res.status(STATUS_OF[apiError.code]).json(body);
  };
}
