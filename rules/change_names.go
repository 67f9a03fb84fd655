package rules

import (
	"strconv"
	"strings"
)

// Names for printing a typed change (`contractlint debug diff`, test
// failures): a change should read as "removed field", never "Kind:2 Subject:9".

var kindNames = [...]string{Added: "added", Removed: "removed", Modified: "modified"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

var subjectNames = [...]string{
	SubjectPath:          "path",
	SubjectOperation:     "operation",
	SubjectParameter:     "parameter",
	SubjectRequestBody:   "request body",
	SubjectMediaType:     "media type",
	SubjectResponse:      "response",
	SubjectHeader:        "header",
	SubjectSchema:        "schema",
	SubjectField:         "field",
	SubjectEnumValue:     "enum value",
	SubjectSecurity:      "security",
	SubjectScope:         "scope",
	SubjectDiscriminator: "discriminator",
	SubjectFile:          "file",
	SubjectPackage:       "package",
	SubjectMessage:       "message",
	SubjectEnum:          "enum",
	SubjectService:       "service",
	SubjectRPC:           "rpc",
	SubjectOneof:         "oneof",
	SubjectReserved:      "reserved",
	SubjectFileOption:    "file option",
	SubjectExtension:     "extension",
	SubjectContract:      "contract",
	SubjectLock:          "lock",
}

func (s Subject) String() string {
	if int(s) < len(subjectNames) && subjectNames[s] != "" {
		return subjectNames[s]
	}
	return "subject(" + strconv.Itoa(int(s)) + ")"
}

func (d Direction) String() string {
	var parts []string
	if d.Has(Request) {
		parts = append(parts, "request")
	}
	if d.Has(Response) {
		parts = append(parts, "response")
	}
	if rest := d &^ (Request | Response); rest != 0 {
		parts = append(parts, "direction("+strconv.Itoa(int(rest))+")")
	}
	return strings.Join(parts, "+")
}
