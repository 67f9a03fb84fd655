package gittest

import (
	"io/fs"
	"syscall"
)

// statData is the stat data git keeps in an index entry, so that git
// trusts the entry without hashing the file again.
func statData(fi fs.FileInfo) [10]uint32 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return [10]uint32{}
	}
	return [10]uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
		uint32(st.Dev), uint32(st.Ino), 0, st.Uid, st.Gid, uint32(st.Size)}
}
