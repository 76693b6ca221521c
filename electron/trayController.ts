import { Menu, nativeImage, Tray } from 'electron';
import type { AppState } from './logic/appState.ts';
import { buildTrayMenuModel, type MenuItemModel, type TrayAction } from './logic/trayMenu.ts';
import { trayMenuTemplate } from './logic/trayTemplate.ts';
import { type TrayIconState, trayIconState, trayTooltip } from './logic/trayState.ts';

export interface TrayControllerDeps {
  productName: string;
  /** Path of the tray icon for a state (template images on macOS). */
  iconPath(state: TrayIconState): string;
  onAction(action: TrayAction): void;
}

/** Renders the tray from the app state; the menu is rebuilt only when its model changed. */
export class TrayController {
  readonly #tray: Tray;
  readonly #deps: TrayControllerDeps;
  #renderedModel = '';
  #renderedIcon: TrayIconState | null = null;
  #model: MenuItemModel[] = [];

  constructor(deps: TrayControllerDeps, initial: AppState) {
    this.#deps = deps;
    this.#tray = new Tray(nativeImage.createFromPath(deps.iconPath(trayIconState(initial))));
    this.render(initial);
  }

  /** rebuildMenu: also when the model is unchanged (a radio item the user clicked has moved its own mark). */
  render(state: AppState, options: { rebuildMenu?: boolean } = {}): void {
    const iconState = trayIconState(state);
    if (iconState !== this.#renderedIcon) {
      this.#tray.setImage(nativeImage.createFromPath(this.#deps.iconPath(iconState)));
      this.#renderedIcon = iconState;
    }
    this.#tray.setToolTip(trayTooltip(state, this.#deps.productName));
    const model = buildTrayMenuModel(state);
    const serialized = JSON.stringify(model);
    if (serialized === this.#renderedModel && !options.rebuildMenu) return;
    this.#renderedModel = serialized;
    this.#model = model;
    this.#tray.setContextMenu(Menu.buildFromTemplate(trayMenuTemplate(model, this.#deps.onAction)));
  }

  /** The current menu as data (the Electron smoke test reads and clicks it through a test hook). */
  model(): readonly MenuItemModel[] {
    return this.#model;
  }

  destroy(): void {
    this.#tray.destroy();
  }
}
