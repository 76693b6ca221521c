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

/**
 * A user's message whose every block has no chat form: sent without them it would be empty (or
 * missing), and the model would answer the turn before it, billed, with no one told.
 */
export function emptiedUserMessage(path: string, droppedTypes: readonly string[], translatedTypes: string): RequestRefusal {
  const types = [...new Set(droppedTypes)].join(', ');
  return badRequest(
    `${path} holds only ${types} content, which Airlock cannot translate to Chat Completions (a user message's ` +
      `${translatedTypes} are), and without it the message would be empty: the model would answer an earlier turn`,
  );
}

/** zod issues as one readable line each, with the JSON path, e.g. `messages.1.content: Invalid input`. */
export function describeSchemaError(error: z.ZodError): string {
  return error.issues
    .flatMap((issue) => deepestIssues(issue, []))
    .slice(0, 5)
    .map((issue) => {
      if (issue.path.length === 0) return issue.message;
      const path = issue.path.join('.');
      return issue.missingType === undefined ? `${path}: ${issue.message}` : `${path} is required (${issue.missingType})`;
    })
    .join('; ');
}

interface SchemaIssue {
  path: PropertyKey[];
  message: string;
  /** Set when the field is absent: the type it must have, as "a number". */
  missingType?: string;
}

function articled(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/**
 * "Invalid input" for a union (content as a string or blocks) says nothing; the alternative that
 * got deepest into the value is the one the client meant, so its issues are reported instead.
 */
function deepestIssues(issue: z.core.$ZodIssue, parentPath: PropertyKey[]): SchemaIssue[] {
  const path = [...parentPath, ...issue.path];
  // The parse reports its input (`reportInput`): a field that is absent is named missing, not of type "undefined".
  if (issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined) {
    return [{ path, message: issue.message, missingType: articled(issue.expected) }];
  }
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
