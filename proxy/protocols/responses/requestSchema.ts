import { z } from 'zod';
import { requestSchemaOnDemand } from '../requestSchemaOnDemand.ts';
import { typedBlockSchema } from '../typedBlockSchema.ts';

/**
 * The parts of a Responses API request that Airlock translates (what Codex CLI sends). Built at the
 * first Responses request, not at start: these zod schemas hold about 0.3 MB of heap, which a proxy
 * whose clients never send one should not keep (RSS idle, DESIGN.md "Performance and memory").
 */
function buildSchemas() {
  const contentPart = typedBlockSchema({
    input_text: z.object({ type: z.literal('input_text'), text: z.string() }),
    output_text: z.object({ type: z.literal('output_text'), text: z.string() }),
    refusal: z.object({ type: z.literal('refusal'), refusal: z.string() }),
    input_image: z.object({
      type: z.literal('input_image'),
      image_url: z.string().nullish(),
      file_id: z.string().nullish(),
      detail: z.string().nullish(),
    }),
    input_file: z.object({ type: z.literal('input_file') }),
  });

  const functionTool = z.object({
    type: z.literal('function'),
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  });

  /** A tool whose input is raw text, optionally held to a grammar (Codex's apply_patch): customTools.ts. */
  const customTool = z.object({
    type: z.literal('custom'),
    name: z.string().min(1),
    description: z.string().nullish(),
    format: z.looseObject({ type: z.string(), syntax: z.string().nullish(), definition: z.string().nullish() }).nullish(),
  });

  /** A search for tools the client kept back; translated only when the client runs it (toolSearch.ts). */
  const toolSearchTool = z.object({
    type: z.literal('tool_search'),
    execution: z.string().nullish(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  });

  const tool = typedBlockSchema({
    function: functionTool,
    custom: customTool,
    // Tools grouped under a name (Codex's sub-agent and MCP tools): namespacedTools.ts.
    namespace: z.object({
      type: z.literal('namespace'),
      name: z.string().min(1),
      description: z.string().nullish(),
      tools: z.array(typedBlockSchema({ function: functionTool, custom: customTool })),
    }),
    tool_search: toolSearchTool,
  });

  const inputItem = z.preprocess(
    // An item with a role and no type is the short form of a message item.
    (item) => (typeof item === 'object' && item !== null && !('type' in item) && 'role' in item ? { ...item, type: 'message' } : item),
    typedBlockSchema({
      message: z.object({
        type: z.literal('message'),
        role: z.enum(['user', 'assistant', 'system', 'developer']),
        content: z.union([z.string(), z.array(contentPart)]),
      }),
      function_call: z.object({
        type: z.literal('function_call'),
        call_id: z.string().min(1),
        name: z.string().min(1),
        // A call of a namespace's tool (namespacedTools.ts).
        namespace: z.string().min(1).nullish(),
        arguments: z.string(),
      }),
      function_call_output: z.object({
        type: z.literal('function_call_output'),
        call_id: z.string().min(1),
        output: z.union([z.string(), z.array(contentPart)]),
      }),
      // A call of a custom (freeform) tool, whose input is raw text (customTools.ts).
      custom_tool_call: z.object({
        type: z.literal('custom_tool_call'),
        call_id: z.string().min(1),
        name: z.string().min(1),
        namespace: z.string().min(1).nullish(),
        input: z.string(),
      }),
      custom_tool_call_output: z.object({
        type: z.literal('custom_tool_call_output'),
        call_id: z.string().min(1),
        output: z.union([z.string(), z.array(contentPart)]),
      }),
      // A tool search the client ran, and the tools it found (toolSearch.ts).
      tool_search_call: z.object({
        type: z.literal('tool_search_call'),
        call_id: z.string().min(1).nullish(),
        execution: z.string().nullish(),
        arguments: z.unknown(),
      }),
      tool_search_output: z.object({
        type: z.literal('tool_search_output'),
        call_id: z.string().min(1).nullish(),
        execution: z.string().nullish(),
        tools: z.array(tool),
      }),
      // Tools Codex sends in the input rather than in `tools` (request.ts).
      additional_tools: z.object({ type: z.literal('additional_tools'), tools: z.array(tool) }),
      // Read back only where Airlock's own mark says its thinking may go back (returnedReasoning.ts).
      reasoning: z.object({
        type: z.literal('reasoning'),
        summary: z.array(z.looseObject({ text: z.string().optional() })).nullish(),
        encrypted_content: z.string().nullish(),
      }),
    }),
  );

  const request = z.object({
    model: z.string().min(1, 'model is required'),
    input: z.union([z.string(), z.array(inputItem)]).optional(),
    instructions: z.string().nullish(),
    tools: z.array(tool).optional(),
    tool_choice: z
      .union([
        z.enum(['auto', 'none', 'required']),
        z.looseObject({ type: z.string(), name: z.string().optional(), namespace: z.string().optional() }),
      ])
      .optional(),
    parallel_tool_calls: z.boolean().nullish(),
    store: z.boolean().nullish(),
    include: z.array(z.string()).nullish(),
    reasoning: z.object({ effort: z.string().nullish() }).nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    temperature: z.number().nullish(),
    top_p: z.number().nullish(),
    stream: z.boolean().nullish(),
    text: z
      .object({
        format: z
          .looseObject({ type: z.string(), name: z.string().optional(), schema: z.unknown().optional(), strict: z.boolean().nullish() })
          .nullish(),
        verbosity: z.string().nullish(),
      })
      .nullish(),
    previous_response_id: z.string().nullish(),
  });
  return { contentPart, functionTool, customTool, toolSearchTool, tool, inputItem, request };
}

type Schemas = ReturnType<typeof buildSchemas>;
export type ResponsesContentPart = z.output<Schemas['contentPart']>;
export type ResponsesFunctionTool = z.output<Schemas['functionTool']>;
export type ResponsesCustomTool = z.output<Schemas['customTool']>;
export type ResponsesToolSearchTool = z.output<Schemas['toolSearchTool']>;
export type ResponsesTool = z.output<Schemas['tool']>;
export type ResponsesInputItem = z.output<Schemas['inputItem']>;
export type ResponsesRequest = z.output<Schemas['request']>;

const onDemand = requestSchemaOnDemand(() => buildSchemas().request);

export const responsesRequestSchema = onDemand.schema;

/** The request's members the translation reads; the others are named in a note. */
export const responsesTranslatedFields = onDemand.translatedFields;
