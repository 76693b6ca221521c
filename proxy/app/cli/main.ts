import { onClosedOutput } from './closedOutput.ts';
import { restartTuned } from './glibcMalloc.ts';
import { createProgram } from './program.ts';

// Only the long-running command: the others end in a moment, and a restart would double their start.
const serving = process.argv.slice(2).includes('serve');
if (serving) restartTuned();
for (const output of [process.stdout, process.stderr]) onClosedOutput(output, serving ? () => undefined : () => process.exit(0));
await createProgram().parseAsync(process.argv);
