package main

// One `go generate ./...` rewrites every file generated from the code: the
// rule list in docs/rules.md, docs/buf-mapping.md, docs/oasdiff-mapping.md,
// and the report and changelog goldens. Each is rewritten by its own test in
// -update mode, the test that fails while the file is stale, so generator
// and check cannot drift; TestGenerateCoversUpdates holds this list to every
// test package that has an -update flag.
//
//go:generate go test ./rules ./internal/cli ./internal/report ./internal/changelog -run "^(TestBufMapping|TestOasdiffMapping|TestReadmeRules|TestGolden|TestReleasedIDs)$" -update
