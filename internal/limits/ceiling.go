package limits

import "fmt"

// Capped holds each set limit of l (a config file's) at its built-in
// default: a config may lower a limit but never raise one past it, so a
// pull request's own .contractlint.yaml cannot make a hostile schema run
// for minutes. Only a flag (the caller's, not the contract's) raises one.
// Each limit held is named, with its flag, for a warning.
func (l Limits) Capped() (Limits, []string) {
	d := Default()
	var held []string
	capAt := func(v *int, def int, key, flag string) {
		if *v > def {
			held = append(held, fmt.Sprintf("limits.%s %d is above the built-in ceiling and is held at %d (only %s raises it)", key, *v, def, flag))
			*v = def
		}
	}
	if l.FileSize > d.FileSize {
		held = append(held, fmt.Sprintf("limits.file-size %s is above the built-in ceiling and is held at %s (only %s raises it)",
			FormatSize(l.FileSize), FormatSize(d.FileSize), FileSizeFlag))
		l.FileSize = d.FileSize
	}
	capAt(&l.Depth, d.Depth, "depth", DepthFlag)
	capAt(&l.Files, d.Files, "files", FilesFlag)
	elementsHeld := l.Elements > d.Elements
	capAt(&l.Elements, d.Elements, "elements", ElementsFlag)
	// One key sets both element limits: one already held is named once.
	if l.ProtoElements > d.ProtoElements {
		if !elementsHeld {
			held = append(held, fmt.Sprintf("limits.elements %d is above the built-in ceiling for .proto files and is held at %d there (only %s raises it)",
				l.ProtoElements, d.ProtoElements, ElementsFlag))
		}
		l.ProtoElements = d.ProtoElements
	}
	capAt(&l.Keys, d.Keys, "keys", KeysFlag)
	if l.ProtoLine > d.ProtoLine {
		held = append(held, fmt.Sprintf("limits.proto-line %s is above the built-in ceiling and is held at %s (only %s raises it)",
			FormatSize(int64(l.ProtoLine)), FormatSize(int64(d.ProtoLine)), ProtoLineFlag))
		l.ProtoLine = d.ProtoLine
	}
	capAt(&l.TotalElements, d.TotalElements, "total-elements", TotalFlag)
	for _, k := range Kinds {
		capAt(&l.Counts[k], d.Counts[k], k.String(), CountFlag+" "+k.String()+"=N")
	}
	return l, held
}
