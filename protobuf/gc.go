package protobuf

import "runtime/debug"

// compileGCPercent is the GC target while compiling a large tree. Such a
// tree compiles in batches (see batchFiles), so what stays live is one
// batch's syntax trees and the linked files later batches import, while
// the compiler's garbage is several times that: collecting it less often
// than at the default target saves CPU for a peak the batches keep low. On
// googleapis (user CPU of the whole run, peak; batches without letting go
// of unneeded files before 300): 50: 43 s; 100: 33 s, 1.7 GB; 150: 27 s,
// 1.8 GB; 200: 24 s, 1.6-1.9 GB; 300: 22 s, 1.8-1.9 GB; 400: 21.6 s,
// 1.8-2.1 GB.
const compileGCPercent = 300

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
