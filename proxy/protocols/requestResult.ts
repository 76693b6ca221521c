import type { z } from 'zod';

/**
 * What a request translator returns. `notes` say what was dropped or approximated, for the log:
 * a translation that changes the request must never be silent.
 */
export type ChatRequestTranslation =
  | { ok: true; chatBody: Record<string, unknown>; stream: boolean; notes: string[]; clientToolNames?: ClientToolNames }
  | RequestRefusal;

/**
 * Why a request cannot be translated. `unfixable`: no fix to the request makes it servable through a
 * chat gateway (what it asks for runs only at the client's own provider), so the refusal must not ask
 * for a fixed retry; its message says what to do instead.
 */
export interface RequestRefusal {
  ok: false;
  status: 400;
  message: string;
  unfixable?: true;
}

/**
 * A client tool chat cannot name or call as the client does: a Responses `namespace` tool's member
 * (named with its namespace as well), a custom tool, whose call carries raw text (`freeform`), or a
 * client-executed tool search, whose call is an item of its own (`toolSearch`).
 */
export interface ClientToolName {
  namespace?: string;
  name: string;
  freeform?: true;
  toolSearch?: true;
}

/**
 * The chat function names given to client tools that chat cannot name as the client does, to the
 * client's names, for the answer's calls. A plain object: it crosses from the translation thread.
 */
export type ClientToolNames = Readonly<Record<string, ClientToolName>>;

export function badRequest(message: string): RequestRefusal {
  return { ok: false, status: 400, message };
}

export function unfixableRequest(message: string): RequestRefusal {
  return { ok: false, status: 400, message, unfixable: true };
}

/** zod issues as one readable line each, with the JSON path, e.g. `messages.1.content: Invalid input`. */
export function describeSchemaError(error: z.ZodError): string {
  return error.issues
    .flatMap((issue) => deepestIssues(issue, []))
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/**
 * "Invalid input" for a union (content as a string or blocks) says nothing; the alternative that
 * got deepest into the value is the one the client meant, so its issues are reported instead.
 */
function deepestIssues(issue: z.core.$ZodIssue, parentPath: PropertyKey[]): { path: PropertyKey[]; message: string }[] {
  const path = [...parentPath, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [{ path, message: issue.message }];
  const depth = (branch: z.core.$ZodIssue[]): number => Math.max(...branch.map((inner) => inner.path.length));
  const deepest = issue.errors.reduce((best, branch) => (depth(branch) > depth(best) ? branch : best));
  if (depth(deepest) === 0) return [{ path, message: issue.message }];
  return deepest.flatMap((inner) => deepestIssues(inner, path));
}

/** Top-level fields the translator does not read: dropped, never forwarded blindly. */
export function unknownFieldNotes(body: Record<string, unknown>, knownFields: ReadonlySet<string>): string[] {
  const unknown = Object.keys(body).filter((field) => !knownFields.has(field));
  return unknown.length > 0 ? [`dropped unsupported fields: ${unknown.join(', ')}`] : [];
}
