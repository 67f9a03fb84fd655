package probefake

import (
	"flag"
	"strconv"
)

// probeRuns is how many probe runs a test binary lets run at once.
const probeRuns = 32

// RunsAtOnce lets a package's parallel tests all run at once unless
// -test.parallel was given; a TestMain calls it after flag.Parse. A probe
// run spends its seconds waiting, on the held request of the in-flight step
// (DelayHeader) and on the delayed retry, not on the CPU, so go test's
// default of GOMAXPROCS runs at a time only queues them: on two cores,
// twenty runs took twenty seconds of wall for one of CPU.
func RunsAtOnce() {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(probeRuns))
	}
}
