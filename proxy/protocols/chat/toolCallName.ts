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
