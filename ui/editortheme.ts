// The editor's CodeMirror theme (colours from the page's CSS variables).

import { EditorView } from "@codemirror/view";

export const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "var(--code-size)", backgroundColor: "var(--bg-editor)", color: "var(--fg)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "var(--code-lh)" },
  ".cm-content": { caretColor: "var(--accent)", padding: "6px 0" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--accent)", borderLeftWidth: "2px" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection)" },
  ".cm-gutters": { backgroundColor: "var(--bg-editor)", color: "var(--fg-faint)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)", color: "var(--fg-muted)" },
  ".cm-lineNumbers .cm-gutterElement": { padding: "0 6px 0 4px", minWidth: "3ch", cursor: "pointer" },
  ".cm-tooltip": { backgroundColor: "var(--bg-raised)", color: "var(--fg)", border: "1px solid var(--border-strong)", borderRadius: "6px", boxShadow: "var(--shadow)" },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": { backgroundColor: "var(--accent-bg)", color: "var(--fg)" },
  ".cm-tooltip-lint": { padding: "0" },
  ".cm-diagnostic": { padding: "4px 8px", fontFamily: "var(--sans)" },
  ".cm-panels": { backgroundColor: "var(--bg-panel)", color: "var(--fg)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--border)" },
  ".cm-searchMatch": { backgroundColor: "var(--search-match)", outline: "1px solid var(--search-outline)" },
  ".cm-searchMatch.cm-searchMatch-selected": { backgroundColor: "var(--search-match-sel)" },
  ".cm-selectionMatch": { backgroundColor: "var(--selection-match)" },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "var(--bracket)", outline: "none" },
  // Lint markers as glyphs, so they do not look like breakpoints.
  ".cm-gutter-lint": { width: "1.2em" },
  ".cm-gutter-lint .cm-gutterElement": { padding: "0 1px", display: "flex", alignItems: "center", justifyContent: "center" },
  ".cm-lint-marker": { width: "auto", height: "auto", fontSize: "calc(10px * var(--k))", fontWeight: "700", lineHeight: "1" },
  ".cm-lint-marker-error": { content: "none" },
  ".cm-lint-marker-warning": { content: "none" },
  ".cm-lint-marker-info": { content: "none" },
  ".cm-lint-marker-error::before": { content: '"✖"', color: "var(--err)" },
  ".cm-lint-marker-warning::before": { content: '"▲"', color: "var(--warn)" },
  ".cm-lint-marker-info::before": { content: '"●"', color: "var(--accent)" },
  ".cm-textfield, .cm-button": { backgroundImage: "none", backgroundColor: "var(--bg-input)", color: "var(--fg)", border: "1px solid var(--border-strong)", borderRadius: "4px" },
});
