package pipeline_test

import (
	"os"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
)

// TestMain runs the tests with the collector's target raised: most of their
// CPU is loading whole corpus documents (see corpus.LoadingGC).
func TestMain(m *testing.M) {
	corpus.LoadingGC()
	os.Exit(m.Run())
}
