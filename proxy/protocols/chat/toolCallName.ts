/**
 * A streamed tool call's name so far, with the name its next delta carries. Gateways send it three
 * ways: whole on the call's first delta (OpenAI, vLLM), in pieces (Gemini: "edit_ex", "isting_file"),
 * or whole again on every delta (MiniMax through NVIDIA NIM). A piece equal to the name so far is that
 * repeat; any other is the next piece. Continue joins names by this rule (continuedev/continue#5849).
 * It misreads only a name cut exactly between two equal halves ("get_get_" as "get_", "get_"), which
 * no tool is named like; joining every piece instead doubles the repeated names ("read_fileread_file").
 */
export function joinedToolCallName(nameSoFar: string, piece: string): string {
  return piece === nameSoFar ? nameSoFar : nameSoFar + piece;
}

/** A call being put together from streamed pieces, as the gateway numbers and names it. */
export interface PiecedCall {
  readonly chatIndex: number | null;
  readonly chatId: string | null;
}

/**
 * The call so far that a streamed piece continues, or undefined when it begins one. A piece with an
 * id continues the call of that id; a new id with a name begins a call even at an index taken
 * already (some gateways number every call 0, each with its own id); a piece without an id, or
 * with a new id and no name, continues the latest call at its index (the last call when it has none).
 */
export function callContinued<T extends PiecedCall>(
  calls: readonly T[],
  piece: { index: number | null; id: string | null; name: string | null },
): T | undefined {
  const atIndex = piece.index === null ? undefined : calls.findLast((call) => call.chatIndex === piece.index);
  if (piece.id !== null) return calls.find((call) => call.chatId === piece.id) ?? (piece.name === null ? atIndex : undefined);
  return piece.index === null ? calls.at(-1) : atIndex;
}
