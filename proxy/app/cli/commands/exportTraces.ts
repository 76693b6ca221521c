import type { Command } from 'commander';
import { otlpEndpointInputSchema, type TraceExportSettings } from '../../../contracts/config.ts';
import { removeTraceHeader, setTraceHeader, traceHeaderNameOf, traceHeaderValueOf } from '../../export/traceHeaders.ts';
import { updateSettings } from '../../profiles/configMutations.ts';
import { describeKeyStatus, keyLastFour } from '../../secrets/keyCache.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { commandHintFor, configStoreFor, secretsFor, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { readSecretInput } from './secretInput.ts';

interface TraceFlags {
  endpoint?: string;
  off?: boolean;
  header?: string;
  removeHeader?: string;
}

/** The value as sent, or a refusal that names the header (never the value). */
function headerValueOf(name: string, raw: string): string {
  try {
    return traceHeaderValueOf(raw);
  } catch (error) {
    throw new Error(`header ${name}: ${error instanceof Error ? error.message : 'invalid value'}`);
  }
}

/** The endpoint as saved, or a refusal that quotes it only when it holds no credentials. */
function endpointOf(text: string): TraceExportSettings['otlpEndpoint'] {
  const parsed = otlpEndpointInputSchema.safeParse(text.trim());
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const holdsCredentials = issue?.code === 'custom';
  throw new CommandLineError(
    `--endpoint${holdsCredentials ? '' : ` "${text}"`}: ${issue?.message ?? 'invalid'}${holdsCredentials ? ' (--header <name>)' : ''}`,
  );
}

function describe(settings: TraceExportSettings): string[] {
  const lines = [
    settings.otlpEndpoint === null
      ? 'Trace export is off.'
      : `Spans go to ${settings.otlpEndpoint} (a running Airlock applies it to its next request).`,
  ];
  // Names only: the values stay in the keychain, and listing does not read it.
  if (settings.headerNames.length > 0) lines.push(`Headers (values in the OS keychain): ${settings.headerNames.join(', ')}`);
  return lines;
}

/**
 * `airlock export traces [--endpoint <url>|--off] [--header <name>] [--remove-header <name>]`: the
 * OTLP endpoint, and the headers a hosted collector needs (its API key). A header's value is read
 * from stdin or a no-echo prompt, as `airlock key set` reads a key, and kept in the OS keychain.
 */
export function registerExportTracesCommand(exportCommand: Command, deps: CliDeps): void {
  exportCommand
    .command('traces')
    .description('show or set the OTLP/HTTP endpoint that gets one OpenTelemetry span per request (off by default), and its headers')
    .option('--endpoint <url>', 'the collector, e.g. http://127.0.0.1:4318 (/v1/traces is added to a bare address)')
    .option('--off', 'stop sending spans')
    .option(
      '--header <name>',
      'send this header with each export (e.g. x-honeycomb-team); its value is read from stdin or a hidden prompt, never the command line',
    )
    .option('--remove-header <name>', 'stop sending this header and delete its value from the keychain')
    .action((flags: TraceFlags, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        const problem = store.problem();
        if (problem) throw new Error(problem);
        if (flags.endpoint !== undefined && flags.off) throw new CommandLineError('give --endpoint <url> or --off, not both');
        let endpoint: TraceExportSettings['otlpEndpoint'] | undefined;
        if (flags.off) endpoint = null;
        else if (flags.endpoint !== undefined) endpoint = endpointOf(flags.endpoint);
        const stores = { secrets: secretsFor(command, deps), config: store, hint: commandHintFor(command, deps) };
        if (flags.header !== undefined) {
          const name = traceHeaderNameOf(flags.header);
          const raw = await readSecretInput(deps, `Value of header ${name} (input hidden): `, 'header value');
          const value = headerValueOf(name, raw);
          if (/%[0-9A-Fa-f]{2}/.test(value))
            writeLine(
              deps.stderr,
              'note: the value holds a %-escape; it is sent as given (OTEL_EXPORTER_OTLP_HEADERS percent-encodes, a header does not).',
            );
          await setTraceHeader(stores, name, value);
          writeLine(
            deps.stdout,
            `Saved header ${name} in the OS keychain (${describeKeyStatus({ set: true, lastFour: keyLastFour(value) })}).`,
          );
        }
        if (flags.removeHeader !== undefined) {
          await removeTraceHeader(stores, flags.removeHeader);
          writeLine(deps.stdout, `Removed header ${traceHeaderNameOf(flags.removeHeader)}.`);
        }
        const config =
          endpoint === undefined
            ? store.snapshot()
            : await store.update((current) =>
                updateSettings(current, { traceExport: { ...current.settings.traceExport, otlpEndpoint: endpoint } }),
              );
        for (const line of describe(config.settings.traceExport)) writeLine(deps.stdout, line);
      }),
    );
}
