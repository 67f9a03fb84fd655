package rules

import (
	"crypto/sha256"
	"encoding/hex"
)

// changeFingerprint identifies the change a finding of rule is about by what
// changed, not where: the rule, the element and its old and new values. A
// waiver keyed on it survives a rebase, reformatting and unrelated edits,
// and stops matching when the change itself changes.
func changeFingerprint(rule string, c *Change) string {
	return hashParts(rule, c.Path, c.Kind.String(), c.Subject.String(), string(c.Aspect), c.Name, c.Old.Text, c.New.Text)
}

// ChangeFingerprint is f's fingerprint: the change's, for a finding about a
// change, else one of its rule, element and message, which hold no line.
func (f Finding) ChangeFingerprint() string {
	if f.Fingerprint != "" {
		return f.Fingerprint
	}
	return hashParts(f.Rule, f.Path, f.Message)
}

func hashParts(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}
