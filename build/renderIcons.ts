/**
 * Renders build/icons/icon.svg to the PNG sizes the platforms want (build/icons/png/NxN.png;
 * electron-builder derives .icns and .ico from the large ones) and the tray icons per state.
 * Run with `node build/renderIcons.ts` after changing an SVG; the PNGs are committed.
 * Uses headless Chromium (CHROMIUM_PATH, default /usr/bin/chromium) through playwright-core.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { TRAY_ICON_STATES, type TrayIconState } from '../electron/logic/trayState.ts';

const iconsDir = fileURLToPath(new URL('./icons/', import.meta.url));
const APP_ICON_SIZES_PX = [16, 32, 48, 64, 128, 256, 512, 1024];
/** 16 px, and 32 px as the @2x file Electron picks on HiDPI screens. */
const TRAY_SIZES_PX = [16, 32];

/** Coloured dot per state on Windows/Linux; on macOS a template (black + alpha) shape per state. */
const TRAY_COLORS: Record<TrayIconState, string> = { serving: '#16a34a', paused: '#6b7280', error: '#dc2626', budget: '#d97706' };

function traySvg(state: TrayIconState, template: boolean): string {
  const stroke = template ? '#000' : '#1f2937';
  const ring = `<rect x="2" y="3" width="12" height="10" rx="2.5" fill="none" stroke="${stroke}" stroke-width="1.6"/>`;
  const marks: Record<TrayIconState, string> = {
    serving: `<circle cx="8" cy="8" r="2.6" fill="${template ? '#000' : TRAY_COLORS.serving}"/>`,
    paused: `<rect x="5.6" y="5.5" width="1.6" height="5" fill="${template ? '#000' : TRAY_COLORS.paused}"/><rect x="8.8" y="5.5" width="1.6" height="5" fill="${template ? '#000' : TRAY_COLORS.paused}"/>`,
    error: `<path d="M5.5 5.5l5 5M10.5 5.5l-5 5" stroke="${template ? '#000' : TRAY_COLORS.error}" stroke-width="1.8" stroke-linecap="round"/>`,
    budget: `<path d="M8 4.8v3.8" stroke="${template ? '#000' : TRAY_COLORS.budget}" stroke-width="1.8" stroke-linecap="round"/><circle cx="8" cy="10.8" r="1.1" fill="${template ? '#000' : TRAY_COLORS.budget}"/>`,
  };
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">${ring}${marks[state]}</svg>`;
}

function trayFileName(state: TrayIconState, template: boolean, sizePx: number): string {
  return `tray-${state}${template ? 'Template' : ''}${sizePx === 32 ? '@2x' : ''}.png`;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage();
  const render = async (svg: string, sizePx: number): Promise<Buffer> => {
    await page.setViewportSize({ width: sizePx, height: sizePx });
    const dataUrl = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(
      `<html><body style="margin:0;background:transparent"><img src="${dataUrl}" width="${sizePx}" height="${sizePx}" style="display:block"></body></html>`,
    );
    await page.locator('img').evaluate((image: HTMLImageElement) => image.decode());
    return page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: sizePx, height: sizePx } });
  };

  const appSvg = readFileSync(join(iconsDir, 'icon.svg'), 'utf8');
  mkdirSync(join(iconsDir, 'png'), { recursive: true });
  for (const sizePx of APP_ICON_SIZES_PX) writeFileSync(join(iconsDir, 'png', `${sizePx}x${sizePx}.png`), await render(appSvg, sizePx));

  mkdirSync(join(iconsDir, 'tray'), { recursive: true });
  for (const state of TRAY_ICON_STATES) {
    for (const template of [false, true]) {
      for (const sizePx of TRAY_SIZES_PX)
        writeFileSync(join(iconsDir, 'tray', trayFileName(state, template, sizePx)), await render(traySvg(state, template), sizePx));
    }
  }
} finally {
  await browser.close();
}
