package report

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
)

// sarifMaxBytes is code scanning's limit on an uploaded SARIF file, gzip
// compressed (as upload-sarif sends it): a bigger file is rejected whole.
const sarifMaxBytes = 10 << 20

// SizedSARIF is SARIF kept under a compressed size: past it, the least
// severe findings are left out (as many as must be, found by bisection),
// and a notification says how many and why.
type SizedSARIF struct {
	SARIF
	// MaxBytes bounds the gzip-compressed output (0: sarifMaxBytes).
	MaxBytes int
}

func (s SizedSARIF) Write(w io.Writer, r *Report) error {
	limit := s.MaxBytes
	if limit <= 0 {
		limit = sarifMaxBytes
	}
	render := func(keep int, rr *Report) ([]byte, int, error) {
		inner := s.SARIF
		inner.MaxResults = keep
		var buf bytes.Buffer
		if err := inner.Write(&buf, rr); err != nil {
			return nil, 0, err
		}
		n, err := gzipSize(buf.Bytes())
		return buf.Bytes(), n, err
	}
	out, size, err := render(s.MaxResults, r)
	if err != nil || size <= limit {
		if err == nil {
			_, err = w.Write(out)
		}
		return err
	}
	// Fewer results always make a smaller file: bisect on how many fit.
	short := *r
	fits := func(keep int) ([]byte, bool, error) {
		short.Notes = append(slices.Clip(r.Notes), fmt.Sprintf(
			"%d least severe findings left out to keep the file under code scanning's %d MB (gzip compressed)", len(r.Findings)-keep, limit>>20))
		rr := short
		if keep == 0 {
			rr.Findings = nil // MaxResults 0 would mean no bound
		}
		out, size, err := render(keep, &rr)
		return out, size <= limit, err
	}
	lo, hi := 0, min(len(r.Findings), cmpPositive(s.MaxResults, len(r.Findings)))
	best, _, err := fits(0)
	if err != nil {
		return err
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		b, ok, err := fits(mid)
		if err != nil {
			return err
		}
		if ok {
			lo, best = mid, b
		} else {
			hi = mid - 1
		}
	}
	_, err = w.Write(best)
	return err
}

// cmpPositive is n when positive, else def.
func cmpPositive(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

func gzipSize(b []byte) (int, error) {
	var c countingWriter
	z := gzip.NewWriter(&c)
	if _, err := z.Write(b); err != nil {
		return 0, err
	}
	err := z.Close()
	return int(c), err
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
