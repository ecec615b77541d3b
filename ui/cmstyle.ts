// CodeMirror injects its styles through style-mod, which in a document
// writes a <style> element: the page's Content-Security-Policy
// (default-src 'self', no 'unsafe-inline') would block it. Constructed
// stylesheets adopted by the document are not inline styles, so mount the
// style modules there instead, in the order style-mod would use.
// Import this module before anything creates an EditorView.

import { StyleModule } from "style-mod";

const modules: StyleModule[] = [];
let sheet: CSSStyleSheet | null = null;

function mount(root: Document | ShadowRoot, mods: StyleModule | readonly StyleModule[]): void {
  const list = Array.isArray(mods) ? (mods as readonly StyleModule[]) : [mods as StyleModule];
  const doc = root instanceof Document ? root : root.ownerDocument;
  if (!sheet) {
    sheet = new CSSStyleSheet();
    doc.adoptedStyleSheets = [sheet, ...doc.adoptedStyleSheets];
  }
  let j = 0;
  let changed = false;
  for (const mod of list) {
    let index = modules.indexOf(mod);
    if (index < j && index > -1) {
      modules.splice(index, 1);
      j--;
      index = -1;
    }
    if (index === -1) {
      modules.splice(j++, 0, mod);
      changed = true;
    } else {
      j = index + 1;
    }
  }
  if (changed) sheet.replaceSync(modules.map((m) => m.getRules()).join("\n"));
}

if (typeof CSSStyleSheet === "function" && "adoptedStyleSheets" in Document.prototype) {
  (StyleModule as unknown as { mount: typeof mount }).mount = mount;
}
