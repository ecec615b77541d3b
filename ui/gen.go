package ui

// Bundle the TypeScript sources into static/app.js and static/app.css
// (needs `npm ci` at the repository root first).
//go:generate go run ../cmd/uibuild
