/**
 * The refusals of a body that names a member Airlock reads so that parsers disagree on its value:
 * Airlock would price, cap and rewrite one value while a relay or gateway bills another.
 */

const BILLING_GAP = 'so what Airlock priced and checked against your budget could differ from what is billed';

/** Airlock reads one value and a relay or gateway may read the other: what is priced, capped or answered could differ from what is billed. */
export function repeatedMemberMessage(member: string): string {
  return (
    `the request body names its top-level "${member}" more than once; relays and gateways differ on which one they read ` +
    `(the first or the last), ${BILLING_GAP}. Send each top-level member once`
  );
}

/** A form's field twice: servers differ on which one they read, as with a JSON member. */
export function repeatedFieldMessage(field: string): string {
  return (
    `the form names its "${field}" field more than once; servers differ on which one they read (the first or the last), ` +
    `${BILLING_GAP}. Send each of these fields once`
  );
}

/** Go-written relays read such a key as the member, others ignore it: the same gap between what Airlock priced and what is billed. */
export function memberInAnotherCaseMessage({ written, member }: { written: string; member: string }): string {
  return (
    `the request body's top-level "${written}" differs from "${member}" only in letter case; relays written in Go read it as "${member}" ` +
    `(their JSON decoding matches names without case) and others ignore it, ${BILLING_GAP}. Write it "${member}"`
  );
}
