// PTX Playground: the browser side. main.ts only boots the app (app.ts)
// on the playground page; the modules it wires are listed in
// docs/architecture.md.

import "./cmstyle";
import "./styles.css";
import { App } from "./app";
import { decodeLinkOnly, LinkTooLarge } from "./share";
import type { ShareData } from "./share";

async function boot(): Promise<void> {
  if (!document.getElementById("playground")) return;
  // A link-only share holds the kernel in the URL's fragment.
  let linked: ShareData | null = null;
  let bad = "";
  try {
    linked = await decodeLinkOnly(location.hash);
  } catch (e) {
    bad = e instanceof LinkTooLarge
      ? `This link was not opened: ${e.message}.`
      : `This link's kernel could not be read (${(e as Error).message}): it may have been cut short when it was copied.`;
  }
  try {
    const app = new App();
    app.start(linked);
    if (bad) app.notify(bad, "error");
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

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => void boot());
else void boot();
