/** The search text as matched: trimmed, any case. */
const searchedFor = (needle: string): string => needle.trim().toLowerCase();

/** Whether `needle` occurs in `text` (any case); false for an empty search. */
export function holdsMatch(text: string, needle: string): boolean {
  const trimmed = searchedFor(needle);
  return trimmed !== '' && text.toLowerCase().includes(trimmed);
}

/** Where `needle` occurs in `text` (any case), as [start, end) ranges. */
export function matchRanges(text: string, needle: string): [number, number][] {
  const trimmed = searchedFor(needle);
  if (trimmed === '') return [];
  const haystack = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (let at = haystack.indexOf(trimmed); at !== -1; at = haystack.indexOf(trimmed, at + trimmed.length))
    ranges.push([at, at + trimmed.length]);
  return ranges;
}

/** `text` with every match of the search marked, so the user sees where a search matched. */
export function Highlighted({ text, needle }: { text: string; needle: string }) {
  const ranges = matchRanges(text, needle);
  if (ranges.length === 0) return <>{text}</>;
  const pieces = [];
  let last = 0;
  for (const [start, end] of ranges) {
    if (start > last) pieces.push(text.slice(last, start));
    pieces.push(<mark key={start}>{text.slice(start, end)}</mark>);
    last = end;
  }
  pieces.push(text.slice(last));
  return <>{pieces}</>;
}
