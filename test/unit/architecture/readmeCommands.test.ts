import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CLI_COMMAND } from '../../../proxy/contracts/cli.ts';
import { createProgram } from '../../../proxy/app/cli/program.ts';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** Every command a user can run, as its words: ['profile', 'fallback', 'add']. Groups count through their commands. */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  const children = command.commands.filter((child) => child.name() !== 'help');
  if (children.length === 0) return [prefix];
  return children.flatMap((child) => commandPaths(child, [...prefix, child.name()]));
}

/** The README's `npx airlock a b|c d` mentions, each word a set of the alternatives it names. */
function documentedForms(): Set<string>[][] {
  const mention = new RegExp(`${CLI_COMMAND} ((?:[a-z-]+(?:\\|[a-z-]+)*)(?: [a-z-]+(?:\\|[a-z-]+)*)*)`, 'g');
  return [...README.matchAll(mention)].map((match) => (match[1] ?? '').split(' ').map((word) => new Set(word.split('|'))));
}

describe('the README', () => {
  it('names every command of the CLI, so none works unseen where a user looks', () => {
    const forms = documentedForms();
    const documented = (path: string[]): boolean => forms.some((form) => path.every((word, index) => form[index]?.has(word)));
    expect(commandPaths(createProgram()).filter((path) => !documented(path))).toEqual([]);
  });
});
