package protobuf

import "runtime/debug"

// compileGCPercent is the GC target while compiling a large tree. Such a
// tree compiles in batches (see batchFiles), so what stays live is its
// linked descriptors and one batch's syntax trees (on googleapis at most
// about 0.9 GB), while the compiler's garbage is several times that:
// collecting it less often than at the default target saves CPU for a peak
// the batches keep low. On googleapis, 150 took the compile's CPU from 33 s
// at 100 (and 43 s at 50) to 28 s, for a peak of 1.8-2.0 GB.
const compileGCPercent = 150

// CompileGC sets the GC target for compiling files (the files of every side
// compiled at once), when they are many, and returns the function that
// restores it. The target is process-wide, so the one caller that starts
// the compiles sets it once around all of them. A GOGC the user set (any
// but the default 100) stays in force.
func CompileGC(files int) (restore func()) {
	if files < bigCompile {
		return func() {}
	}
	prev := debug.SetGCPercent(compileGCPercent)
	if prev != 100 {
		debug.SetGCPercent(prev)
		return func() {}
	}
	return func() { debug.SetGCPercent(prev) }
}

// Large reports whether compiling files is a large compile: one that keeps
// every core busy on its own, and whose compiler output is big enough that
// two of them at once would double the peak memory.
func Large(files int) bool { return files >= bigCompile }
