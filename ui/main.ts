// PTX Playground: the browser side. main.ts only boots the app (app.ts)
// on the playground page; the modules it wires are listed in
// docs/architecture.md.

import "./cmstyle";
import "./styles.css";
import { App } from "./app";

function boot(): void {
  if (!document.getElementById("playground")) return;
  try {
    new App().start();
  } catch (e) {
    const el = document.getElementById("pg-toast");
    if (el) {
      el.hidden = false;
      el.dataset.kind = "error";
      el.textContent = `The playground failed to start: ${(e as Error).message}`;
    }
    throw e;
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
