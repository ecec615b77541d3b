// Presenter mode: larger type and stronger contrast for a projector (with
// either theme), toggled by the header button and a key, remembered in
// localStorage. The styles hang off html.presenter (styles.css).

import { stored } from "./dom";

const KEY = "ptxplay.presenter";

export function presenterOn(): boolean {
  return document.documentElement.classList.contains("presenter");
}

/** Turns presenter mode on or off (save: remember the choice). */
export function setPresenter(on: boolean, save = true): void {
  document.documentElement.classList.toggle("presenter", on);
  for (const b of document.querySelectorAll<HTMLElement>('[data-action="presenter"]')) {
    b.setAttribute("aria-pressed", on ? "true" : "false");
    b.classList.toggle("on", on);
  }
  if (save) stored(KEY, on ? "1" : "0");
}

/** Applies the remembered choice (off by default). */
export function initPresenter(): void {
  setPresenter(stored(KEY) === "1", false);
}

/** Flips presenter mode and returns the new state. */
export function togglePresenter(): boolean {
  setPresenter(!presenterOn());
  return presenterOn();
}
