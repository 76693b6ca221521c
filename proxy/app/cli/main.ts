import { restartTuned } from './glibcMalloc.ts';
import { createProgram } from './program.ts';

// Only the long-running command: the others end in a moment, and a restart would double their start.
if (process.argv.slice(2).includes('serve')) restartTuned();
await createProgram().parseAsync(process.argv);
