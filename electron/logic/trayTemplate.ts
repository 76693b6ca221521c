import type { MenuItemConstructorOptions } from 'electron';
import { showInvisible } from '../../proxy/contracts/displayText.ts';
import type { MenuItemModel, TrayAction } from './trayMenu.ts';

/**
 * A label as Electron must be given it to show it as written. Electron reads a single & as a
 * mnemonic marker and hides it (Windows and Linux underline the next letter, macOS drops it), so a
 * profile named "R&D" showed as "RD"; && shows one &. Bidi controls are written out as in the
 * window, so an override in a profile name cannot reverse the words the tray adds after it.
 */
function menuLabel(text: string): string {
  return showInvisible(text).replaceAll('&', '&&');
}

/** The tray menu model as Electron's menu template, each click calling back with its item's action. */
export function trayMenuTemplate(model: readonly MenuItemModel[], onAction: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return model.map((item) => toMenuItem(item, onAction));
}

function toMenuItem(item: MenuItemModel, onAction: (action: TrayAction) => void): MenuItemConstructorOptions {
  switch (item.type) {
    case 'separator':
      return { type: 'separator', id: item.id };
    case 'label':
      return { id: item.id, label: menuLabel(item.label), enabled: false };
    case 'action':
      return { id: item.id, label: menuLabel(item.label), enabled: item.enabled, click: () => onAction(item.action) };
    case 'radio':
      return {
        id: item.id,
        type: 'radio',
        label: menuLabel(item.label),
        checked: item.checked,
        enabled: item.enabled,
        click: () => onAction(item.action),
      };
    case 'checkbox':
      return { id: item.id, type: 'checkbox', label: menuLabel(item.label), checked: item.checked, click: () => onAction(item.action) };
    case 'submenu':
      return { id: item.id, label: menuLabel(item.label), submenu: item.items.map((child) => toMenuItem(child, onAction)) };
  }
}
