import { describe, expect, it } from 'vitest';
import { APP_PHASES, type AppMemoryPhase } from '../../bench/appMemory.ts';
import { formatAppMemory } from '../../bench/appMemoryReport.ts';

const MiB = 1024 * 1024;
const memory = (anonMiB: number, fileMiB: number) => ({
  rssBytes: (anonMiB + fileMiB) * MiB,
  peakRssBytes: 0,
  anonBytes: anonMiB * MiB,
  fileBytes: fileMiB * MiB,
  pssBytes: anonMiB * MiB,
});
const kind = (name: string, each: [pid: number, pssMiB: number][]) => ({
  kind: name,
  pssBytes: each.reduce((sum, [, pss]) => sum + pss * MiB, 0),
  rssBytes: 0,
  each: each.map(([pid, pss]) => ({ pid, pssBytes: pss * MiB, rssBytes: 0 })),
});
const phase = (name: string, renderers: [number, number][]): AppMemoryPhase => ({
  phase: name,
  proxy: memory(50, 60),
  chromium: [kind('browser', [[1, 100]]), kind('gpu-process', [[2, 30]]), ...(renderers.length > 0 ? [kind('renderer', renderers)] : [])],
});

describe('the packaged app memory estimate', () => {
  it("counts as the window's the renderers its close ended, and the ones still running apart", () => {
    const report = formatAppMemory({
      bareNode: memory(8, 35),
      chromiumVersion: '156',
      phases: [
        phase(APP_PHASES.atRest, []),
        phase(APP_PHASES.windowOpen, [
          [10, 70],
          [11, 20],
          [12, 5],
        ]),
        phase(APP_PHASES.windowClosed, [[12, 6]]),
      ],
    });
    // Main: browser 100 + serve's anonymous 50, up to + its 25 MB of code above bare Node.
    expect(report).toContain(
      "Estimate, window open: main process 150.0-175.0 + the window's renderers 90.0 + GPU, utility and zygote processes 30.0 = 270.0-295.0 MB (headless Chromium's other renderers: 5.0)",
    );
    expect(report).toContain('Estimate, window closed: main process 150.0-175.0 + GPU, utility and zygote processes 30.0 = 180.0-205.0 MB');
    expect(report).toContain("The proxy's share (serve at rest less bare Node, RSS): 67.0");
  });
});
