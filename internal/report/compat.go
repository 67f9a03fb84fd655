package report

import "github.com/contractlint/contractlint/rules"

// compatLabel names the direction a finding breaks (" [forward]") when the
// run judged more than backward; "" otherwise, so default output is unchanged.
func compatLabel(f rules.Finding) string {
	if f.Compat == 0 {
		return ""
	}
	return " [" + f.Compat.String() + "]"
}
