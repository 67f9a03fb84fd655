// Command splitspec writes a single-file OpenAPI document out as Redocly's
// `split` lays it out (see corpus.Split), for .ci/side-by-side's multi-file
// cases; with -change, it then makes the one-file change they measure (see
// corpus.SplitChange):
//
//	go run ./internal/corpus/testdata/splitspec [-change] SPEC.yaml DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/contractlint/contractlint/internal/corpus"
)

func main() {
	change := flag.Bool("change", false, "make the one-file change after splitting")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: splitspec [-change] SPEC.yaml DIR")
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err == nil {
		var files []string
		files, err = corpus.Split(b, flag.Arg(1))
		if err == nil && *change {
			err = corpus.SplitChange(flag.Arg(1))
		}
		if err == nil {
			fmt.Printf("%d files\n", len(files))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "splitspec:", err)
		os.Exit(1)
	}
}
