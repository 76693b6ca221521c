import { z } from 'zod';

/**
 * The body of a save of a settings object: any of its fields, at least one, each checked as the
 * file's schema checks it (without its default). A field left out keeps what the file holds when
 * the save is made: a window filled before another writer (`airlock memory`, `airlock limits`, a
 * hand edit) changed one field must not undo that change when the user saves the other.
 */
export function settingUpdateSchema<Fields extends z.ZodRawShape>(fields: Fields) {
  const names = Object.keys(fields);
  return z
    .object(fields)
    .partial()
    .strict()
    .refine((update) => names.some((name) => (update as Record<string, unknown>)[name] !== undefined), {
      message: `give at least one of ${names.join(', ')}`,
    });
}
