package ui

// Write the protocol's TypeScript declarations (proto_gen.ts) from the Go
// types of package sessions, then bundle the TypeScript sources into
// static/app.js and static/app.css (needs `npm ci` at the repository root
// first).
//go:generate go run ../cmd/protogen -o proto_gen.ts -api api_gen.ts
//go:generate go run ../cmd/cudadocs -in ../docs/cuda.md -o cudadocs_gen.ts
//go:generate go run ../cmd/uibuild
