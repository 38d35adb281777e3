// Command apisize prints the size of each package's public API: the
// exported functions, methods of exported types, types, struct fields,
// constants and variables, outside tests. README.md's "Where things are"
// table is its output:
//
//	go run ./internal/apisize caveat token dpop verify guard chain mcp store/sqlitestore store/redisstore
package main

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
)

func main() {
	fset := token.NewFileSet()
	for _, dir := range os.Args[1:] {
		bp, err := build.Default.ImportDir(dir, 0) // this platform's files, no tests
		if err != nil {
			fail(err)
		}
		n := 0
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				fail(err)
			}
			n += exported(f)
		}
		fmt.Printf("| `%s/` | %d |\n", dir, n)
	}
}

// exported counts f's exported identifiers.
func exported(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || recvExported(d.Recv)) {
				n++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				n += exportedSpec(s)
			}
		}
	}
	return n
}

func exportedSpec(s ast.Spec) int {
	n := 0
	switch s := s.(type) {
	case *ast.TypeSpec:
		if !s.Name.IsExported() {
			return 0
		}
		n++
		if st, ok := s.Type.(*ast.StructType); ok {
			for _, fl := range st.Fields.List {
				for _, nm := range fl.Names {
					if nm.IsExported() {
						n++
					}
				}
			}
		}
	case *ast.ValueSpec:
		for _, nm := range s.Names {
			if nm.IsExported() {
				n++
			}
		}
	}
	return n
}

func recvExported(r *ast.FieldList) bool {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "apisize:", err)
	os.Exit(1)
}
