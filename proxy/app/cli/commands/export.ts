import { MAX_SEARCH_TEXT_CHARS, SEARCH_TEXT_TOO_LONG } from '../../../contracts/requests.ts';
import { createWriteStream, fchmodSync, openSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import type { Command } from 'commander';
import packageJson from '../../../../package.json' with { type: 'json' };
import { DEFAULT_PORT } from '../../../contracts/defaults.ts';
import {
  REQUEST_EXPORT_FORMATS,
  SPEND_EXPORT_GROUPS,
  spendGroupByOf,
  type RequestExportFormat,
  type SpendExportGroup,
} from '../../../contracts/export.ts';
import type { RequestListFilter } from '../../../contracts/log.ts';
import { spendCsv } from '../../export/csv.ts';
import { openLogForReading } from '../../export/readOnlyLog.ts';
import { writeRequestExport, type ExportSink } from '../../export/requestExport.ts';
import { parseMoment } from '../../export/since.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { dataDirFor, defaultCliDeps, hintFor, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { registerExportTracesCommand } from './exportTraces.ts';
import { openLogWithSecrets } from './logSecrets.ts';

interface RequestExportFlags {
  format: string;
  since?: string;
  until?: string;
  profile?: string;
  model?: string;
  client?: string;
  status?: string;
  text?: string;
  out?: string;
}

interface SpendExportFlags {
  format: string;
  since: string;
  until?: string;
  groupBy: string;
  out?: string;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], option: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CommandLineError(`${option} "${value}": use ${allowed.join(' or ')}`);
}

function momentOf(text: string, nowMs: number, option: string): number {
  try {
    return parseMoment(text, nowMs, option);
  } catch (error) {
    throw new CommandLineError(error instanceof Error ? error.message : String(error));
  }
}

function filterOf(flags: RequestExportFlags, nowMs: number): Omit<RequestListFilter, 'beforeCursor' | 'limit'> {
  const filter: Omit<RequestListFilter, 'beforeCursor' | 'limit'> = {};
  if (flags.since !== undefined) filter.fromMs = momentOf(flags.since, nowMs, '--since');
  if (flags.until !== undefined) filter.toMs = momentOf(flags.until, nowMs, '--until');
  if (flags.profile) filter.profileId = flags.profile;
  if (flags.model) filter.model = flags.model;
  if (flags.client) filter.clientName = flags.client;
  if (flags.text) {
    // As the control API takes it: past this, its JSON forms outgrow SQLite's LIKE patterns.
    if (flags.text.trim().length > MAX_SEARCH_TEXT_CHARS) throw new CommandLineError(`--text: ${SEARCH_TEXT_TOO_LONG}`);
    filter.text = flags.text;
  }
  if (flags.status !== undefined) {
    const status = flags.status.trim();
    if (status === 'ok' || status === 'error') filter.status = status;
    else if (/^\d{3}$/.test(status)) filter.status = Number(status);
    else throw new CommandLineError(`--status "${flags.status}": use ok, error or a three-digit status`);
  }
  return filter;
}

/** Why --out cannot be written, in words, for the file system's usual codes. */
const OUT_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'a part of its path is a file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
};

/**
 * The --out file opened for writing and readable by its owner only: an export holds prompts and
 * answers, and a file that already existed would otherwise keep its mode (0644 is common).
 */
function openOutput(file: string, warn: (line: string) => void): number {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'w', 0o600);
  } catch (error) {
    const problem = OUT_PROBLEMS[(error as NodeJS.ErrnoException).code ?? ''];
    throw problem ? new Error(`cannot write --out ${file}: ${problem}`) : error;
  }
  try {
    fchmodSync(descriptor, 0o600);
  } catch (error) {
    // Another user's file that this one may write: the export goes there, with its mode said.
    warn(
      `warning: ${file} keeps its permissions (${(error as NodeJS.ErrnoException).code ?? 'chmod failed'}): others may read this export.`,
    );
  }
  return descriptor;
}

/**
 * Runs `write` into the --out file (created 0600: an export holds prompts and answers) or stdout,
 * and returns where it went, for the closing line on stderr.
 */
async function toOutput(deps: CliDeps, out: string | undefined, write: (sink: ExportSink) => Promise<void>): Promise<string> {
  if (out === undefined) {
    await write(deps.stdout);
    return 'stdout';
  }
  const file = path.resolve(deps.cwd, out);
  const stream = createWriteStream(file, { fd: openOutput(file, (line) => writeLine(deps.stderr, line)) });
  try {
    await write(stream);
  } finally {
    stream.end();
  }
  await once(stream, 'finish');
  return file;
}

/** `airlock export requests|spend|traces`: the request log as HAR or CSV, spend as CSV, read from the data directory's log; the trace export setting. */
export function registerExportCommands(program: Command, deps: CliDeps = defaultCliDeps()): void {
  const exportCommand = program.command('export').description('write the request log (HAR, CSV) or spend (CSV) to a file or stdout');

  exportCommand
    .command('requests')
    .description('export logged requests, newest first, with the filters of the window’s request list')
    .requiredOption('--format <format>', `${REQUEST_EXPORT_FORMATS.join(' or ')} (HAR holds bodies and headers, never credentials)`)
    .option('--since <when>', 'from this moment: 30m, 24h, 7d, 2w back, or a date such as 2026-11-01')
    .option('--until <when>', 'up to this moment (same forms)')
    .option('--profile <id>', 'only this profile')
    .option('--model <model>', 'only this model (the one sent upstream)')
    .option('--client <name>', 'only this client token')
    .option('--status <status>', 'ok, error or an exact status such as 429')
    .option('--text <text>', 'only requests whose bodies, path or models hold this text')
    .option('--out <file>', 'write to this file (created readable by you only) instead of stdout')
    .action((flags: RequestExportFlags, command: Command) =>
      withCliErrors(command, deps, async () => {
        const format = oneOf<RequestExportFormat>(flags.format, REQUEST_EXPORT_FORMATS, '--format');
        const filter = filterOf(flags, deps.nowMs());
        const { log, knownSecrets } = await openLogWithSecrets(command, deps);
        let count = 0;
        try {
          const where = await toOutput(deps, flags.out, async (sink) => {
            count = await writeRequestExport(log.queries, sink, {
              format,
              filter,
              // The port is not known from the file: entries name the default address, which HAR needs to have a URL.
              proxyUrl: `http://127.0.0.1:${DEFAULT_PORT}`,
              knownSecrets,
              airlockVersion: packageJson.version,
            });
          });
          writeLine(deps.stderr, `Exported ${count} request${count === 1 ? '' : 's'} as ${format.toUpperCase()} to ${where}.`);
        } finally {
          log.close();
        }
      }),
    );

  exportCommand
    .command('spend')
    .description('export spend per day (local time) and model, profile or client as CSV')
    .option('--format <format>', 'csv', 'csv')
    .option('--since <when>', 'from this moment: 30m, 24h, 7d, 2w back, or a date such as 2026-11-01', '30d')
    .option('--until <when>', 'up to this moment (same forms; default: now)')
    .option('--group-by <group>', SPEND_EXPORT_GROUPS.join(', '), 'model')
    .option('--out <file>', 'write to this file instead of stdout')
    .action((flags: SpendExportFlags, command: Command) =>
      withCliErrors(command, deps, async () => {
        oneOf(flags.format, ['csv'] as const, '--format');
        const groupBy = spendGroupByOf(oneOf<SpendExportGroup>(flags.groupBy, SPEND_EXPORT_GROUPS, '--group-by'));
        const nowMs = deps.nowMs();
        const fromMs = momentOf(flags.since, nowMs, '--since');
        const toMs = flags.until === undefined ? nowMs + 1 : momentOf(flags.until, nowMs, '--until');
        const log = openLogForReading(dataDirFor(command, deps), hintFor(command, deps));
        try {
          const rows = log.queries.spendByDay({ fromMs, toMs, groupBy });
          const where = await toOutput(deps, flags.out, async (sink) => {
            sink.write(spendCsv(rows, groupBy));
          });
          writeLine(deps.stderr, `Exported spend for ${new Set(rows.map((row) => row.day)).size} day(s) to ${where}.`);
        } finally {
          log.close();
        }
      }),
    );

  registerExportTracesCommand(exportCommand, deps);
}
