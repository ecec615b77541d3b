// Package browser holds the playground's end-to-end tests: they start the
// real server (web and sessions) on a loopback port, drive Debian's
// Chromium through the DevTools protocol (chromedp) at 1280×800, and check
// what the page shows against the emulator run in-process on the same
// launch. Screenshots of the main states go to artifacts/browser/ at the
// repository root.
//
// Run them with
//
//	go test -count=1 ./web/browser
//
// They need a Chromium (/usr/bin/chromium, or the binary named by
// PTXPLAY_CHROMIUM). Without one they skip, except in CI (CI=true), where
// they fail. The package has no code outside its tests.
package browser
