package gittest

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"
)

// TestZlibStored: the objects Commit writes inflate to what was stored,
// across the 64 KiB limit of a stored block too.
func TestZlibStored(t *testing.T) {
	for _, n := range []int{0, 1, 0xffff, 0x10000, 3*0xffff + 7} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		r, err := zlib.NewReader(bytes.NewReader(zlibStored(data)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes: inflate gives %d bytes, %v", n, len(got), err)
		}
	}
}
