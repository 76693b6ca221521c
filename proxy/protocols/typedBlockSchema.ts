import { z } from 'zod';

/** A content block or input item whose `type` the translator does not know: dropped with a note. */
export interface UnsupportedBlock {
  type: 'unsupported';
  originalType: string;
}

/**
 * A union keyed by `type` that validates known types strictly (errors point into the block) and
 * lets unknown types through as `UnsupportedBlock`, so new client features degrade to a note
 * instead of a 400. (A plain union would report only "invalid input" for a malformed block.)
 */
export function typedBlockSchema<Schemas extends Record<string, z.ZodType>>(schemas: Schemas) {
  return z.looseObject({ type: z.string() }).transform((block, ctx): z.output<Schemas[keyof Schemas]> | UnsupportedBlock => {
    const schema = Object.hasOwn(schemas, block.type) ? schemas[block.type] : undefined;
    if (schema === undefined) return { type: 'unsupported', originalType: block.type };
    const parsed = schema.safeParse(block);
    if (parsed.success) return parsed.data as z.output<Schemas[keyof Schemas]>;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });
}
