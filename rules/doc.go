// Package rules holds the shared model both formats lower into (Contract,
// Change, Location, Finding), the declared shape of a rule (Rule, Doc, Pack,
// Registry, Settings) and the catalogue of built-in rules, one file per pack
// or family. A rule is a declared value with its documentation and a check
// over the typed diff or one contract; it never reads raw documents and
// never prints. The machinery that runs rules and filters their findings is
// package internal/engine.
package rules
