package probe

import (
	"flag"
	"os"
	"testing"

	"github.com/contractlint/contractlint/internal/probe/probefake"
)

func TestMain(m *testing.M) {
	flag.Parse()
	probefake.RunsAtOnce()
	os.Exit(m.Run())
}
