// Package schemacheck is what the packages checking documents against
// their JSON Schemas (rules, scout definitions, actions' params) share:
// compiling an embedded schema, and reading a validation error down to
// the failures that say what is wrong. Each package words the failures its
// own way.
package schemacheck

import (
	"bytes"
	"errors"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Compile compiles one schema document, known by its $id url.
func Compile(url string, doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// Failure is one place a document breaks a schema.
type Failure struct {
	// At is the instance location, one unescaped segment per step; empty
	// for the document itself.
	At  []string
	Msg string // in English
}

// Leaves returns the deepest failures of a validation error, in the
// validator's order: the ones above them say only that a reference or a
// combination failed. ok is false when err is not a validation error.
func Leaves(err error) (out []Failure, ok bool) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, false
	}
	p := message.NewPrinter(language.English)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, Failure{At: e.InstanceLocation, Msg: e.ErrorKind.LocalizedString(p)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out, true
}
