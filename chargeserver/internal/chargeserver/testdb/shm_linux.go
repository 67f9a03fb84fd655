package testdb

import "syscall"

// shmRoom is the least free space shm must have for tests to keep their
// files there: a container's /dev/shm is often 64 MB, which parallel tests'
// databases could fill, and a full disk would fail them for no fault of
// the code under test.
const shmRoom = 1 << 30

// roomy reports whether dir's file system has shmRoom free.
func roomy(dir string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return false
	}
	return st.Bavail*uint64(st.Bsize) >= shmRoom
}
