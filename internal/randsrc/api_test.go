package randsrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// readerAllowed are the exported parameters of type io.Reader that carry
// data, not randomness: "package.Func.param".
var readerAllowed = map[string]bool{
	"chain.Scan.r":              true,
	"chain.VerifyReader.r":      true,
	"mcp.Run.agentIn":           true,
	"mcp.Run.agentOut":          true,
	"mcp.Serve.agentIn":         true,
	"mcp.Serve.serverOut":       true,
	"mcp.ServeUpstream.agentIn": true,
}

// TestNoRandomnessInPublicAPI: no exported function or method
// of the module's public packages takes an io.Reader other than the data
// readers above, and no exported struct has an io.Reader field or a field
// named Rand.
func TestNoRandomnessInPublicAPI(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if base == "internal" || base == "testdata" || base == "cmd" || base == "bench" || strings.HasPrefix(base, ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		n++
		pkg := f.Name.Name
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				for _, p := range d.Type.Params.List {
					for _, name := range p.Names {
						if isReader(p.Type) && !readerAllowed[pkg+"."+d.Name.Name+"."+name.Name] {
							t.Errorf("%s: %s.%s takes io.Reader %s", fset.Position(p.Pos()), pkg, d.Name.Name, name.Name)
						}
					}
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fld := range st.Fields.List {
						for _, name := range fld.Names {
							if name.IsExported() && (isReader(fld.Type) || name.Name == "Rand") {
								t.Errorf("%s: %s.%s has field %s", fset.Position(fld.Pos()), pkg, ts.Name.Name, name.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d files checked", n)
	}
}

func isReader(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == "io" && s.Sel.Name == "Reader"
}
