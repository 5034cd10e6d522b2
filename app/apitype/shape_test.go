package apitype_test

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/shapes.golden from the package's types")

// field is one struct field as the wire sees it.
type field struct {
	goName, key, goType string
	omitempty           bool
}

// shapes reads every exported struct type of the package (its non-test
// files) with each field's JSON key, omitempty and Go type, in source
// order: what the frontend, the CLI and the tests rely on.
func shapes(t *testing.T) (names []string, byType map[string][]field) {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	byType = map[string][]field{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				names = append(names, ts.Name.Name)
				for _, fl := range st.Fields.List {
					if len(fl.Names) == 0 {
						t.Fatalf("%s embeds %s: this test reads no embedded fields", ts.Name.Name, types(fset, fl.Type))
					}
					tag := ""
					if fl.Tag != nil {
						raw, _ := strconv.Unquote(fl.Tag.Value)
						tag = reflect.StructTag(raw).Get("json")
					}
					key, opts, _ := strings.Cut(tag, ",")
					for _, n := range fl.Names {
						if !n.IsExported() {
							continue
						}
						k := key
						if k == "" {
							k = n.Name // what encoding/json sends without a tag
						}
						byType[ts.Name.Name] = append(byType[ts.Name.Name], field{goName: n.Name, key: k,
							goType: types(fset, fl.Type), omitempty: slices.Contains(strings.Split(opts, ","), "omitempty")})
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names, byType
}

func types(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	if err := printer.Fprint(&b, fset, e); err != nil {
		return fmt.Sprintf("%T", e)
	}
	return b.String()
}

// The wire shape of every type is the one in testdata/shapes.golden: a
// renamed JSON key, an omitempty added or dropped, a field's type changed
// fails here, and must be a deliberate change (go test -update, and the
// frontend's mirror in frontend/src/api updated with it).
func TestWireShapesAreTheGoldenOnes(t *testing.T) {
	names, byType := shapes(t)
	var b strings.Builder
	for _, n := range names {
		if len(byType[n]) == 0 {
			fmt.Fprintf(&b, "%s (no fields)\n", n)
		}
		for _, f := range byType[n] {
			omit := ""
			if f.omitempty {
				omit = ",omitempty"
			}
			fmt.Fprintf(&b, "%s.%s %q %s\n", n, f.goName, f.key+omit, f.goType)
		}
	}
	golden := filepath.Join("testdata", "shapes.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the API types' wire shape changed (go test -update to accept it, then update frontend/src/api):\n%s", lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// tsInterfaces reads the frontend's mirror of these types: each exported
// interface's top-level fields (two-space indented), whether optional,
// with the fields of the interfaces it extends.
func tsInterfaces(t *testing.T) map[string]map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "frontend", "src", "api", "*.ts"))
	if err != nil || len(files) == 0 {
		t.Skipf("no frontend sources beside the module (%v)", err)
	}
	head := regexp.MustCompile(`^export interface (\w+)(?: extends ([\w, ]+))? \{`)
	line := regexp.MustCompile(`^  (\w+)(\??):`)
	fields := map[string]map[string]bool{} // interface → field → optional
	extends := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, ".test.ts") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cur := ""
		for _, l := range strings.Split(string(raw), "\n") {
			if m := head.FindStringSubmatch(l); m != nil {
				cur = m[1]
				fields[cur] = map[string]bool{}
				for _, p := range strings.Split(m[2], ",") {
					if p = strings.TrimSpace(p); p != "" {
						extends[cur] = append(extends[cur], p)
					}
				}
				continue
			}
			if cur == "" {
				continue
			}
			if strings.HasPrefix(l, "}") {
				cur = ""
				continue
			}
			if m := line.FindStringSubmatch(l); m != nil {
				fields[cur][m[1]] = m[2] == "?"
			}
		}
	}
	for n, parents := range extends {
		for _, p := range parents {
			for k, opt := range fields[p] {
				if _, ok := fields[n][k]; !ok {
					fields[n][k] = opt
				}
			}
		}
	}
	return fields
}

// The frontend's mirror (frontend/src/api) reads only what the agent
// sends: every field of an interface named as a Go type is one of that
// type's JSON keys, and one it counts on (not optional) is never left out
// by omitempty. A Go field renamed without the frontend fails here.
func TestTheFrontendReadsOnlyWhatTheAgentSends(t *testing.T) {
	_, byType := shapes(t)
	ts := tsInterfaces(t)
	checked := 0
	for name, tsFields := range ts {
		goFields, ok := byType[name]
		if !ok {
			continue
		}
		checked++
		keys := map[string]field{}
		for _, f := range goFields {
			keys[f.key] = f
		}
		for k, optional := range tsFields {
			f, ok := keys[k]
			if !ok {
				t.Errorf("the frontend reads %s.%s, which apitype.%s does not send", name, k, name)
				continue
			}
			if !optional && f.omitempty {
				t.Errorf("the frontend counts on %s.%s, which apitype.%s.%s leaves out when empty (omitempty)", name, k, name, f.goName)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d frontend interfaces matched Go types: the mirror's layout changed, this test reads nothing", checked)
	}
}
