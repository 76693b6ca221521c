import { typedNumber } from '../../../contracts/amounts.ts';
import { CommandLineError } from '../airlockCommand.ts';

/**
 * An option's number read as the window's fields read one (contracts/amounts.ts typedNumber): Number() took `0x10` as
 * 16 and an empty option as 0, and 1e400 as Infinity, refused as "must be a number". A text with no digit is NaN, which
 * the schema refuses in its own words.
 */
export function optionNumber(option: string, text: string): number {
  const typed = typedNumber(text);
  if (typed === undefined) throw new CommandLineError(`${option}: give a number`);
  if (typeof typed === 'object') throw new CommandLineError(`${option}: ${typed.problem}`);
  return typed;
}
