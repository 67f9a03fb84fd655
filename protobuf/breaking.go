package protobuf

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/source"
)

// Breaking is what a buf.yaml's `breaking:` section asks of buf breaking:
// the categories or rules it uses (FILE, WIRE_JSON, RPC_NO_DELETE) and the
// rules it leaves out. Found is false when no buf.yaml above the file has one.
type Breaking struct {
	Found  bool
	File   string // the buf.yaml it came from
	Use    []string
	Except []string
	// Ignore lists the files and directories, root-relative (joined to the
	// buf.yaml's directory), whose changes buf breaking does not judge;
	// IgnoreOnly the same for one rule or category each.
	Ignore     []string
	IgnoreOnly map[string][]string
	// IgnoreUnstable is ignore_unstable_packages: changes in packages
	// whose version is alpha, beta or test (foo.v1beta1) are not judged.
	IgnoreUnstable bool
}

type bufBreaking struct {
	Use            []string            `yaml:"use"`
	Except         []string            `yaml:"except"`
	Ignore         []string            `yaml:"ignore"`
	IgnoreOnly     map[string][]string `yaml:"ignore_only"`
	IgnoreUnstable bool                `yaml:"ignore_unstable_packages"`
}

// BreakingFor reads the breaking settings that govern file: those of the
// nearest buf.yaml above it (a v2 module's own, else the file's top-level
// ones), as buf reads them.
func BreakingFor(src source.Source, file string) (Breaking, error) {
	for d := path.Dir(file); ; d = path.Dir(d) {
		name := path.Join(d, "buf.yaml")
		if exists(src, name) {
			b, err := src.ReadFile(name)
			if err != nil {
				return Breaking{}, source.Errorf(name, 0, 0, "cannot read: %v", err)
			}
			var c struct {
				Breaking *bufBreaking `yaml:"breaking"`
				Modules  []struct {
					Path     string       `yaml:"path"`
					Breaking *bufBreaking `yaml:"breaking"`
				} `yaml:"modules"`
			}
			if err := yaml.Unmarshal(b, &c); err != nil {
				return Breaking{}, source.Errorf(name, 0, 0, "%s (contractlint reads its breaking settings; pass --proto-level to bypass them)",
					strings.Join(strings.Fields(err.Error()), " "))
			}
			br := c.Breaking
			for _, m := range c.Modules {
				if m.Breaking != nil && under(file, path.Join(d, orDot(m.Path))) {
					br = m.Breaking
				}
			}
			if br == nil {
				return Breaking{}, nil
			}
			out := Breaking{Found: true, File: name, Use: br.Use, Except: br.Except, IgnoreUnstable: br.IgnoreUnstable}
			// buf writes these paths from the buf.yaml's directory.
			for _, p := range br.Ignore {
				out.Ignore = append(out.Ignore, path.Join(d, p))
			}
			for id, ps := range br.IgnoreOnly {
				if out.IgnoreOnly == nil {
					out.IgnoreOnly = map[string][]string{}
				}
				for _, p := range ps {
					out.IgnoreOnly[id] = append(out.IgnoreOnly[id], path.Join(d, p))
				}
			}
			return out, nil
		}
		if d == "." || d == "/" {
			return Breaking{}, nil
		}
	}
}
