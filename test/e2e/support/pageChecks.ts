import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const axeSource = require('node:fs').readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') as string;

export interface AxeViolation {
  id: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core in the page (WCAG 2 A and AA rules) and returns what it found. Injected through
 * evaluate, which the window's Content-Security-Policy (scripts from its own files only) allows.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: AxeResultViolation[] }> } })
      .axe;
    interface AxeResultViolation {
      id: string;
      help: string;
      nodes: { target: string[] }[];
    }
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((violation) => ({
      id: violation.id,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
}

/**
 * The elements that stick out sideways past the window (what makes a screen scroll sideways), as
 * "tag.class (right edge px)"; empty when nothing does.
 */
export function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrollers = [document.scrollingElement, ...document.querySelectorAll('.content, .live-list, .detail')].filter(
      (element): element is Element => element !== null,
    );
    const overflowing = scrollers.filter((element) => element.scrollWidth > element.clientWidth + 1);
    if (overflowing.length === 0) return [];
    const culprits: string[] = [];
    for (const element of document.querySelectorAll('body *')) {
      const box = element.getBoundingClientRect();
      if (box.right > width + 1 && box.width > 0)
        culprits.push(`${element.tagName.toLowerCase()}.${element.className} (${Math.round(box.right)} px)`);
    }
    return [`${overflowing.map((element) => element.className || element.tagName).join(', ')} scroll sideways`, ...culprits.slice(0, 8)];
  });
}
