// Applies the theme chosen in the playground (its ◐ button, kept in
// localStorage) to the server-rendered pages (the gallery, 404) before they
// paint. Without a choice they follow prefers-color-scheme.
try {
  const t = localStorage.getItem("ptxplay.theme");
  if (t === "light" || t === "dark") document.documentElement.dataset.siteTheme = t;
} catch {
  // no storage
}
