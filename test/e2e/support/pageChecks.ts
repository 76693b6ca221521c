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

/**
 * Text under `rootSelector` whose colour against what lies behind it is below `minimumRatio` (WCAG
 * 2 contrast; AA asks 4.5 for text), as "text: ratio". axe skips SVG text, so this computes the
 * ratio itself: an SVG text's computed fill, an HTML element's computed colour, against the first
 * ancestor background that is not transparent.
 */
export function lowContrastText(page: Page, rootSelector: string, minimumRatio = 4.5): Promise<string[]> {
  return page.evaluate(
    ({ rootSelector, minimumRatio }) => {
      type Rgba = [number, number, number, number];
      const parse = (colour: string): Rgba | null => {
        const match = /^rgba?\(([^)]*)\)$/.exec(colour.trim());
        if (!match) return null;
        const [red = 0, green = 0, blue = 0, alpha = 1] = (match[1] ?? '')
          .split(/[\s,/]+/)
          .filter(Boolean)
          .map(Number);
        return [red, green, blue, alpha];
      };
      const over = (top: Rgba, below: Rgba): Rgba => [
        top[0] * top[3] + below[0] * (1 - top[3]),
        top[1] * top[3] + below[1] * (1 - top[3]),
        top[2] * top[3] + below[2] * (1 - top[3]),
        1,
      ];
      const luminance = ([red, green, blue]: Rgba): number => {
        const linear = (channel: number) => {
          const value = channel / 255;
          return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue);
      };
      const backgroundOf = (element: Element): Rgba => {
        for (let node: Element | null = element; node !== null; node = node.parentElement) {
          const colour = parse(getComputedStyle(node).backgroundColor);
          if (colour !== null && colour[3] > 0) return colour[3] < 1 ? over(colour, [255, 255, 255, 1]) : colour;
        }
        return [255, 255, 255, 1];
      };
      const root = document.querySelector(rootSelector);
      if (root === null) return [`${rootSelector}: not on the page`];
      const texts = [...root.querySelectorAll('*')].filter((element) =>
        [...element.childNodes].some((child) => child.nodeType === Node.TEXT_NODE && (child.textContent ?? '').trim() !== ''),
      );
      if (texts.length === 0) return [`${rootSelector}: no text`];
      const low: string[] = [];
      for (const element of texts) {
        const style = getComputedStyle(element);
        const painted = parse(element instanceof SVGElement ? style.fill : style.color);
        const background = backgroundOf(element);
        if (painted === null) {
          low.push(`${element.textContent}: colour ${element instanceof SVGElement ? style.fill : style.color} unreadable`);
          continue;
        }
        const [lighter, darker] = [luminance(over(painted, background)), luminance(background)].sort((a, b) => b - a);
        const ratio = ((lighter ?? 0) + 0.05) / ((darker ?? 0) + 0.05);
        if (ratio < minimumRatio) low.push(`${element.textContent}: ${ratio.toFixed(2)}`);
      }
      return low;
    },
    { rootSelector, minimumRatio },
  );
}

/** The focused element's name as a screen reader would start it: its label, else its text; "the page" when focus fell to the body. */
export function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (element === null || element === document.body) return 'the page';
    return element.getAttribute('aria-label') ?? element.textContent?.trim() ?? '';
  });
}
