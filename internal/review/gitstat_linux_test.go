package review

import (
	"io/fs"
	"syscall"
)

// statOf is a file's stat data as git records it on Linux.
func statOf(fi fs.FileInfo) stat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return mtimeStat(fi)
	}
	return stat{
		ctime: uint32(st.Ctim.Sec), ctimeNsec: uint32(st.Ctim.Nsec),
		mtime: uint32(st.Mtim.Sec), mtimeNsec: uint32(st.Mtim.Nsec),
		dev: uint32(st.Dev), ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid,
	}
}
