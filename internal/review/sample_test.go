package review

import "os"

// wholeRun reports whether a test over many cases takes all of them: CI
// (.ci/run sets CI=true) does; plain `go test` takes a sample that still
// reaches every kind of case, so the suite stays light on a busy laptop.
func wholeRun() bool { return os.Getenv("CI") == "true" }
