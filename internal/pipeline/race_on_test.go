//go:build race

package pipeline_test

// raceEnabled: the race detector's shadow memory inflates what a run
// allocates, so absolute allocation bounds hold only without it (the plain
// `go test ./...` run checks them).
const raceEnabled = true
