package fix

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// keyDescription is what the Idempotency-Key fix documents: what the
// idempotency pack asks a contract to publish about the key.
const keyDescription = "A unique key per intent (a UUID): a retry with the same key and body gets the first answer; " +
	"the same key with another body is refused with 422. Keys are kept for 24 hours."

var unitRE = regexp.MustCompile(`unit \S+ -> (\w+)`)

// expand is the expand step of expand-then-contract for a redefined field:
// the old definition restored under the old name, the new one beside it
// under a new name (price_cents for a change of unit to cents).
func expand(text, base string, f *rules.Finding) (string, []Edit) {
	if f.Rule != "field-redefined" || f.Removed || base == "" {
		return "", nil
	}
	suffix := "v2"
	if m := unitRE.FindStringSubmatch(f.Message); m != nil {
		suffix = m[1]
	}
	line := f.Where.Line - 1
	if f.Format == rules.Proto {
		return expandProto(text, base, f, line, suffix)
	}
	newBlock, end := Block(text, line)
	oldBlock, _ := Block(base, OldAt(f).Line-1)
	if newBlock == nil || oldBlock == nil {
		return "", nil
	}
	key := KeyOf(strings.TrimLeft(newBlock[0], " "))
	if key == "" || KeyOf(strings.TrimLeft(oldBlock[0], " ")) != key {
		return "", nil
	}
	renamed := key + "_" + suffix
	ni, oi := Indent(newBlock[0]), Indent(oldBlock[0])
	var b strings.Builder
	for _, l := range oldBlock {
		b.WriteString(reindent(l, oi, ni) + "\n")
	}
	b.WriteString(strings.Repeat(" ", ni) + renamed + strings.TrimPrefix(strings.TrimLeft(newBlock[0], " "), key) + "\n")
	for _, l := range newBlock[1:] {
		b.WriteString(l + "\n")
	}
	return fmt.Sprintf("Expand: keep %s as it was, add %s beside it", key, renamed),
		[]Edit{{Start: line, End: end, Text: b.String()}}
}

// idempotencyKey adds a required Idempotency-Key header parameter to an
// OpenAPI operation that lacks one, whether or not its API has a key
// convention yet.
func idempotencyKey(text, _ string, f *rules.Finding) (string, []Edit) {
	keyless := f.Rule == "idempotency-key-missing" || f.Rule == rules.KeyNotAdoptedID
	if !keyless || f.Format != rules.OpenAPI || f.Removed {
		return "", nil
	}
	line := f.Where.Line - 1
	op, _ := Block(text, line)
	if op == nil || !strings.HasSuffix(strings.TrimSpace(op[0]), ":") {
		return "", nil
	}
	child := Indent(op[0]) + 2
	for _, l := range op[1:] {
		if !Blank(l) {
			child = Indent(l)
			break
		}
	}
	pad := strings.Repeat(" ", child)
	param := func(item string) string {
		return item + "- name: Idempotency-Key\n" +
			item + "  in: header\n" +
			item + "  required: true\n" +
			item + "  description: " + strconv.Quote(keyDescription) + "\n" +
			item + "  schema: {type: string, maxLength: 255}\n"
	}
	const title = "Add a required Idempotency-Key header"
	for i, l := range op[1:] {
		if Indent(l) != child || KeyOf(l[child:]) != "parameters" {
			continue
		}
		if strings.TrimSpace(l[child+len("parameters:"):]) != "" {
			return "", nil // a flow list: not edited line by line
		}
		item := pad + "  "
		if i+2 < len(op) && !Blank(op[i+2]) {
			item = strings.Repeat(" ", Indent(op[i+2]))
		}
		return title, []Edit{Insert(line+i+2, param(item))}
	}
	return title, []Edit{Insert(line+1, pad+"parameters:\n"+param(pad+"  "))}
}
