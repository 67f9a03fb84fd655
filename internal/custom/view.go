package custom

import (
	"reflect"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/ext"

	"github.com/contractlint/contractlint/rules"
)

// Field is what an expression sees of a property or message field
// (old_field, new_field): the meaning-bearing facts, by the names a rule
// author reads in `contractlint debug diff`. Present is false on the side
// where the field does not exist.
type Field struct {
	Present    bool     `cel:"present"`
	Name       string   `cel:"name"`
	Type       string   `cel:"type"`
	Format     string   `cel:"format"`
	Unit       string   `cel:"unit"`
	Number     int64    `cel:"number"`
	Required   bool     `cel:"required"`
	HasDefault bool     `cel:"has_default"`
	Nullable   bool     `cel:"nullable"`
	Deprecated bool     `cel:"deprecated"`
	Array      bool     `cel:"array"`
	Map        bool     `cel:"map"`
	Enum       []string `cel:"enum"`
	JSONName   string   `cel:"json_name"`
	Title      string   `cel:"title"`
	Pattern    string   `cel:"pattern"`
	Behavior   []string `cel:"behavior"`
	Path       string   `cel:"path"`
}

// fieldType is Field's name in CEL (NativeTypes names a struct by its
// package and type).
const fieldType = "custom.Field"

// changeVars declares the variables a change rule's expressions read, each
// with its type, so a misspelt name or a string compared to a number is a
// config error at load, not a wrong answer at run time. changeView fills
// exactly these.
var changeVars = []cel.EnvOption{
	cel.Variable("kind", cel.StringType),
	cel.Variable("subject", cel.StringType),
	cel.Variable("aspect", cel.StringType),
	cel.Variable("name", cel.StringType),
	cel.Variable("path", cel.StringType),
	cel.Variable("old", cel.StringType),
	cel.Variable("new", cel.StringType),
	cel.Variable("required", cel.BoolType),
	cel.Variable("location", cel.StringType),
	cel.Variable("webhook", cel.BoolType),
	cel.Variable("direction", cel.StringType),
	cel.Variable("operations", cel.ListType(cel.StringType)),
	cel.Variable("format", cel.StringType),
	cel.Variable("deprecated", cel.BoolType),
	cel.Variable("sunset", cel.StringType),
	cel.Variable("old_field", cel.ObjectType(fieldType)),
	cel.Variable("new_field", cel.ObjectType(fieldType)),
}

// changeView is the one place a rules.Change becomes CEL values. When the
// change model's vocabulary grows types of its own (old and new values that
// are not strings), this function, and changeVars beside it, are all that
// change: the expressions teams wrote keep their meaning.
func changeView(c *rules.Change) map[string]any {
	ops := c.Operations
	if ops == nil {
		ops = []string{}
	}
	return map[string]any{
		"kind":       c.Kind.String(),
		"subject":    c.Subject.String(),
		"aspect":     string(c.Aspect),
		"name":       c.Name,
		"path":       c.Path,
		"old":        c.Old.Text,
		"new":        c.New.Text,
		"required":   c.Required,
		"location":   c.In,
		"webhook":    c.Webhook,
		"direction":  c.Dir.String(),
		"operations": ops,
		"format":     c.Format.String(),
		"deprecated": c.Deprecated,
		"sunset":     c.Sunset,
		"old_field":  fieldView(c.OldField),
		"new_field":  fieldView(c.NewField),
	}
}

func fieldView(f *rules.Field) Field {
	if f == nil {
		return Field{Enum: []string{}, Behavior: []string{}}
	}
	v := Field{Present: true, Name: f.Name, Type: f.Type, Format: f.Format, Unit: f.Unit, Number: int64(f.Number),
		Required: f.Required, HasDefault: f.HasDefault, Nullable: f.Nullable, Deprecated: f.Deprecated, Array: f.Array, Map: f.Map,
		Enum: f.Enum, JSONName: f.JSONName, Title: f.Title, Pattern: f.Pattern, Behavior: f.Behavior, Path: f.Path}
	if v.Enum == nil {
		v.Enum = []string{}
	}
	if v.Behavior == nil {
		v.Behavior = []string{}
	}
	return v
}

// nativeTypes registers the views with CEL under their cel tags.
func nativeTypes() cel.EnvOption {
	return ext.NativeTypes(reflect.TypeFor[Field](), reflect.TypeFor[Operation](), reflect.TypeFor[Param](),
		reflect.TypeFor[Schema](), ext.ParseStructTags(true))
}

// Operation is what a lint rule `over: operation` sees of one HTTP
// operation or rpc.
type Operation struct {
	ID          string   `cel:"id"`
	Method      string   `cel:"method"`
	Binding     string   `cel:"binding"`
	Path        string   `cel:"path"`
	Idempotent  bool     `cel:"idempotent"`
	Deprecated  bool     `cel:"deprecated"`
	Params      []Param  `cel:"params"`
	MediaTypes  []string `cel:"media_types"`
	Description string   `cel:"description"`
}

// Param is a request parameter (OpenAPI) or request field used as one (proto).
type Param struct {
	Name     string `cel:"name"`
	In       string `cel:"location"` // "in" is a CEL keyword
	Required bool   `cel:"required"`
	Type     string `cel:"type"`
}

// Schema is what a lint rule `over: schema` sees of one object schema: its
// properties side by side, so a rule can ask for a sibling.
type Schema struct {
	Path   string  `cel:"path"`
	Closed bool    `cel:"closed"`
	Fields []Field `cel:"fields"`
}

func operationView(op *rules.Operation) Operation {
	v := Operation{ID: op.ID, Method: op.Method, Binding: op.Binding, Path: op.Path, Idempotent: op.Idempotent,
		Deprecated: op.Deprecated, Description: op.Description, Params: []Param{}, MediaTypes: op.MediaTypes}
	for _, p := range op.Params {
		v.Params = append(v.Params, Param{Name: p.Name, In: p.In, Required: p.Required, Type: p.Type})
	}
	if v.MediaTypes == nil {
		v.MediaTypes = []string{}
	}
	return v
}

func schemaView(s *rules.Schema) Schema {
	v := Schema{Path: s.Path, Closed: s.Closed, Fields: []Field{}}
	for _, f := range s.Fields {
		v.Fields = append(v.Fields, fieldView(f))
	}
	return v
}
