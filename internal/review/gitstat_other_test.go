//go:build !linux

package review

import "io/fs"

// statOf is a file's stat data as far as FileInfo holds it.
func statOf(fi fs.FileInfo) stat { return mtimeStat(fi) }
