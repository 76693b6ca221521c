import { z } from 'zod';

/**
 * The HAR 1.2 structure (W3C Web Performance WG draft "HTTP Archive (HAR) format"): every field
 * the spec marks required, with its type, and the constraints it states (ISO 8601 start time,
 * -1 for unknown sizes, send/wait/receive never negative). Custom fields start with `_`.
 */
const nameValue = z.object({ name: z.string(), value: z.string(), comment: z.string().optional() }).strict();
const size = z.number().int().min(-1);
const timing = z.number().min(0);
const optionalTiming = z.number().min(-1).optional();

const custom = <T extends z.ZodRawShape>(shape: T) =>
  z
    .object(shape)
    .catchall(z.unknown())
    .superRefine((value, ctx) => {
      for (const key of Object.keys(value))
        if (!(key in shape) && !key.startsWith('_'))
          ctx.addIssue({ code: 'custom', message: `unknown field ${key} (custom fields start with _)` });
    });

const harRequest = custom({
  method: z.string().min(1),
  url: z.url(),
  httpVersion: z.string(),
  cookies: z.array(z.unknown()),
  headers: z.array(nameValue),
  queryString: z.array(nameValue),
  postData: custom({
    mimeType: z.string(),
    params: z.array(z.unknown()),
    text: z.string(),
    comment: z.string().optional(),
  }).optional(),
  headersSize: size,
  bodySize: size,
  comment: z.string().optional(),
});

const harResponse = custom({
  status: z.number().int().min(0),
  statusText: z.string(),
  httpVersion: z.string(),
  cookies: z.array(z.unknown()),
  headers: z.array(nameValue),
  content: custom({
    size: z.number().int().min(0),
    compression: z.number().optional(),
    mimeType: z.string(),
    text: z.string().optional(),
    encoding: z.string().optional(),
    comment: z.string().optional(),
  }),
  redirectURL: z.string(),
  headersSize: size,
  bodySize: size,
  comment: z.string().optional(),
});

const harEntry = custom({
  pageref: z.string().optional(),
  startedDateTime: z.iso.datetime({ offset: true }),
  time: z.number().min(0),
  request: harRequest,
  response: harResponse,
  cache: z.object({}).catchall(z.unknown()),
  timings: custom({
    blocked: optionalTiming,
    dns: optionalTiming,
    connect: optionalTiming,
    send: timing,
    wait: timing,
    receive: timing,
    ssl: optionalTiming,
    comment: z.string().optional(),
  }),
  serverIPAddress: z.string().optional(),
  connection: z.string().optional(),
  comment: z.string().optional(),
}).superRefine((entry, ctx) => {
  // "time" is the sum of the timings that are not -1.
  const { send, wait, receive } = entry.timings as { send: number; wait: number; receive: number };
  if (Math.abs(entry.time - (send + wait + receive)) > 1e-6)
    ctx.addIssue({ code: 'custom', message: 'time is not the sum of the timings' });
});

export const harSchema = z
  .object({
    log: custom({
      version: z.literal('1.2'),
      creator: custom({ name: z.string(), version: z.string(), comment: z.string().optional() }),
      browser: z.unknown().optional(),
      pages: z.array(z.unknown()).optional(),
      entries: z.array(harEntry),
      comment: z.string().optional(),
    }),
  })
  .strict();
