package probefake

import (
	"flag"
	"strconv"
	"testing"
)

// probeRuns is how many probe runs a test binary lets run at once: more
// would crowd a loaded machine's scheduler until a burst's requests no
// longer meet in the fakes' windows (seen with 32 and four test binaries).
const probeRuns = 8

// AllAtOnce is m, its parallel tests run probeRuns at once unless
// -test.parallel was given: a TestMain runs it (os.Exit(AllAtOnce(m).Run())). A probe run
// spends its seconds waiting, on the held request of the in-flight step
// (DelayHeader) and on the delayed retry, not on the CPU, so go test's
// default of GOMAXPROCS runs at a time only queues them: on two cores,
// twenty runs took twenty seconds of wall for one of CPU. Flags are parsed
// in Run, in the test process only (testscript's commands run the test
// binary with flags of their own).
func AllAtOnce(m *testing.M) interface{ Run() int } { return allAtOnce{m} }

type allAtOnce struct{ m *testing.M }

func (a allAtOnce) Run() int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(probeRuns))
	}
	return a.m.Run()
}
