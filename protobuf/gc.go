package protobuf

import "runtime/debug"

// bigGCPercent is the GC target while compiling a large tree. The compiler
// allocates several times the size of what it keeps, and at the default
// target the heap grows to twice the live set between collections, which on
// a tree the size of googleapis is most of the peak. Collecting more often
// costs some CPU during the compile only.
const bigGCPercent = 50

// LowGC lowers the GC target while files (the files of every side compiled
// at once) are compiled, when they are many, and returns the function that
// restores it. The target is process-wide, so the one caller that starts
// the concurrent compiles sets it once around all of them; a lower GOGC the
// user set stays in force.
func LowGC(files int) (restore func()) {
	if files < bigCompile {
		return func() {}
	}
	prev := debug.SetGCPercent(bigGCPercent)
	if prev < bigGCPercent {
		debug.SetGCPercent(prev)
		return func() {}
	}
	return func() { debug.SetGCPercent(prev) }
}

// Large reports whether compiling files is a large compile: one that keeps
// every core busy on its own, and whose compiler output is big enough that
// two of them at once would double the peak memory.
func Large(files int) bool { return files >= bigCompile }
