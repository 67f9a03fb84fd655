package rules

import (
	"maps"
	"slices"
)

// subjectTraits is what the stages after the rules (the lint pass over
// touched operations, the changelog) read of a Subject. Every Subject has
// one entry, held by TestSubjectTable, so a new one cannot be left out of a
// stage that has no case for it.
type subjectTraits struct {
	// noun names an element of the subject in a changelog line.
	noun string
	// operation: the element is part of an operation's (or rpc's) own
	// definition, as opposed to a schema it reaches.
	operation bool
	// body: the element sits inside a request or response body, whose
	// direction tells a reader who writes it.
	body bool
}

var subjectTable = map[Subject]subjectTraits{
	SubjectPath:          {noun: "path"},
	SubjectOperation:     {noun: "operation", operation: true},
	SubjectParameter:     {noun: "parameter", operation: true},
	SubjectRequestBody:   {noun: "request body", operation: true},
	SubjectMediaType:     {noun: "media type", operation: true},
	SubjectResponse:      {noun: "response", operation: true},
	SubjectHeader:        {noun: "header", operation: true},
	SubjectSchema:        {noun: "schema", body: true},
	SubjectField:         {noun: "field", body: true},
	SubjectEnumValue:     {noun: "enum value", body: true},
	SubjectSecurity:      {noun: "security requirement", operation: true},
	SubjectScope:         {noun: "scope", operation: true},
	SubjectDiscriminator: {noun: "discriminator", body: true},
	SubjectFile:          {noun: "file"},
	SubjectPackage:       {noun: "package"},
	SubjectMessage:       {noun: "message"},
	SubjectEnum:          {noun: "enum"},
	SubjectService:       {noun: "service"},
	SubjectRPC:           {noun: "rpc", operation: true},
	SubjectOneof:         {noun: "oneof"},
	SubjectReserved:      {noun: "reserved"},
	SubjectFileOption:    {noun: "file option"},
	SubjectExtension:     {noun: "extension"},
	SubjectContract:      {noun: "contract"},
	SubjectLock:          {noun: "lock file"},
}

// Subjects lists every declared Subject, in order.
func Subjects() []Subject { return slices.Sorted(maps.Keys(subjectTable)) }

// Noun names an element of the subject in prose: "security requirement".
func (s Subject) Noun() string { return subjectTable[s].noun }

// OfOperation reports whether the subject is part of an operation's (or an
// rpc's) own definition rather than of a schema it reaches.
func (s Subject) OfOperation() bool { return subjectTable[s].operation }

// InBody reports whether the subject sits inside a request or response
// body, so that which direction it travels matters to its reader.
func (s Subject) InBody() bool { return subjectTable[s].body }
