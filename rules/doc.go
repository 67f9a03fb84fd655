// Package rules holds the shared model both formats lower into (Contract,
// Change, Location), the engine that runs rules over it (registry, packs,
// settings, ignores, severity overrides, sorting) and the catalogue of
// built-in rules. A rule is a declared value with its documentation and a
// check over the typed diff or one contract; it never reads raw documents
// and never prints.
package rules
