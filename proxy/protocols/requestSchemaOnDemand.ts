import type { z } from 'zod';

/**
 * A translated protocol's request schema, built at the protocol's first request rather than at
 * start (zod schemas of this size hold hundreds of kilobytes of heap a proxy whose clients never
 * speak the protocol should not keep), with the request members the translation reads.
 */
export function requestSchemaOnDemand<Request extends z.ZodObject>(
  build: () => Request,
): { schema(): Request; translatedFields(): ReadonlySet<string> } {
  let built: { schema: Request; translatedFields: ReadonlySet<string> } | undefined;
  const ready = (): NonNullable<typeof built> => {
    if (built === undefined) {
      const schema = build();
      built = { schema, translatedFields: new Set(Object.keys(schema.shape)) };
    }
    return built;
  };
  return { schema: () => ready().schema, translatedFields: () => ready().translatedFields };
}
