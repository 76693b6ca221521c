import { z } from 'zod';
import { requestSchemaOnDemand } from '../requestSchemaOnDemand.ts';
import { typedBlockSchema } from '../typedBlockSchema.ts';
import { contextManagementSchema } from './contextManagement.ts';

/**
 * The parts of an Anthropic Messages request that Airlock translates. Objects strip keys they do
 * not name (such as `cache_control` or `citations`), so nothing unknown reaches the upstream. Built
 * at the first Messages request, not at start: these zod schemas hold about 0.4 MB of heap, which a
 * proxy whose clients never send one should not keep (RSS idle, DESIGN.md "Performance and memory").
 */
function buildSchemas() {
  const textBlock = z.object({ type: z.literal('text'), text: z.string() });

  const imageBlock = z.object({
    type: z.literal('image'),
    source: z.discriminatedUnion('type', [
      z.object({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
      z.object({ type: z.literal('url'), url: z.string().min(1) }),
      // The Files API's: read to be refused by name (request.ts), not as a wrong discriminator.
      z.object({ type: z.literal('file'), file_id: z.string() }),
    ]),
  });

  // What a client-run tool search found (Claude Code's ToolSearch): Anthropic loads the named deferred tool.
  const toolReferenceBlock = z.object({ type: z.literal('tool_reference'), tool_name: z.string().min(1) });

  // Search results a client found (RAG) and gives the model to cite, in a turn or a tool's result.
  const searchResultBlock = z.object({
    type: z.literal('search_result'),
    source: z.string(),
    title: z.string(),
    content: z.array(textBlock),
  });

  const toolResultBlock = z.object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z
      .union([
        z.string(),
        z.array(
          typedBlockSchema({ text: textBlock, image: imageBlock, tool_reference: toolReferenceBlock, search_result: searchResultBlock }),
        ),
      ])
      .optional(),
    is_error: z.boolean().optional(),
  });

  const contentBlock = typedBlockSchema({
    text: textBlock,
    image: imageBlock,
    tool_use: z.object({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() }),
    tool_result: toolResultBlock,
    // Its signature says whether Airlock's own translated thinking may go back (returnedReasoning.ts).
    thinking: z.object({ type: z.literal('thinking'), thinking: z.string().optional(), signature: z.string().optional() }),
    redacted_thinking: z.object({ type: z.literal('redacted_thinking') }),
    document: z.object({ type: z.literal('document') }),
    search_result: searchResultBlock,
  });

  // A tool without `type` is a custom tool; a typed one is Anthropic-defined (definedTools.ts): a client
  // tool such as bash or the text editor, or a server tool such as web search. It keeps its name, which
  // tool_choice may name, and its settings (a computer's display size).
  const customTool = z.object({
    type: z.literal('custom'),
    name: z.string().min(1),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()),
  });
  const anthropicDefinedTool = z
    .looseObject({ type: z.string().refine((type) => type !== 'custom'), name: z.string().optional() })
    .transform(({ type, name, ...settings }) => ({ type: 'anthropic' as const, originalType: type, name, settings }));
  const toolSchema = z.preprocess(
    (tool) => (typeof tool === 'object' && tool !== null && !('type' in tool) ? { ...tool, type: 'custom' } : tool),
    z.union([customTool, anthropicDefinedTool]),
  );

  const request = z.object({
    model: z.string().min(1, 'model is required'),
    messages: z
      .array(
        z.object({
          role: z.enum(['user', 'assistant', 'system']),
          content: z.union([z.string(), z.array(contentBlock)]),
        }),
      )
      .min(1, 'messages must not be empty'),
    system: z.union([z.string(), z.array(typedBlockSchema({ text: textBlock }))]).optional(),
    max_tokens: z.number().int().positive(),
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    top_k: z.number().int().nonnegative().optional(),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.boolean().optional(),
    metadata: z.object({ user_id: z.string().nullish() }).optional(),
    tools: z.array(toolSchema).optional(),
    tool_choice: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
        z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
        z.object({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
        z.object({ type: z.literal('none') }),
      ])
      .optional(),
    // Claude Code sends effort here beside adaptive thinking, and format for structured outputs.
    output_config: z
      .object({
        effort: z.string().optional(),
        format: z.looseObject({ type: z.string(), schema: z.record(z.string(), z.unknown()).optional() }).optional(),
      })
      .optional(),
    context_management: contextManagementSchema.optional(),
    thinking: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
        z.object({ type: z.literal('adaptive') }),
        z.object({ type: z.literal('disabled') }),
      ])
      .optional(),
  });
  return { contentBlock, imageBlock, request };
}

type Schemas = ReturnType<typeof buildSchemas>;
export type AnthropicImageBlock = z.output<Schemas['imageBlock']>;
export type AnthropicContentBlock = z.output<Schemas['contentBlock']>;
export type AnthropicRequest = z.output<Schemas['request']>;

const onDemand = requestSchemaOnDemand(() => buildSchemas().request);

export const anthropicRequestSchema = onDemand.schema;

/** The request's members the translation reads; the others are named in a note. */
export const anthropicTranslatedFields = onDemand.translatedFields;
