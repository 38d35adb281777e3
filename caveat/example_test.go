package caveat_test

import (
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

func ExampleParse() {
	now := time.Date(2026, 11, 30, 3, 10, 0, 0, time.UTC)
	for _, arg := range []string{
		"tools=write_file,read_file",
		"paths=src/discount",
		"hosts=API.Example.COM,*.example.org",
		"until=10m",
		"cost=0.50USD",
		"intent=upgrade pricing deps",
		"paths=src/../refund",
	} {
		c, err := caveat.Parse(arg, now)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(c)
	}
	// Output:
	// tools=read_file,write_file
	// paths=src/discount/
	// hosts=*.example.org,api.example.com
	// until=2026-11-30T03:20:00Z
	// cost=0.5USD
	// intent="upgrade pricing deps"
	// caveat: paths: src/../refund has a .. segment
}

func ExampleCaveat_Evaluate() {
	now := time.Date(2026, 11, 30, 3, 10, 0, 0, time.UTC)
	paths, _ := caveat.Parse("paths=src/discount/", now)
	for _, p := range []string{"src/discount/rules.go", "src/discount-other/x", "src/discount/../refund"} {
		err := paths.Evaluate(&caveat.Request{Tool: "write_file", Paths: []string{p}}, now, 0)
		fmt.Println(p, "->", err)
	}
	tools, _ := caveat.Parse("tools=read_file,write_file", now)
	fmt.Println(tools.Evaluate(&caveat.Request{Tool: "workspace/read_file"}, now, 0))
	fmt.Println(tools.Evaluate(&caveat.Request{Tool: "delete_file"}, now, 0))
	// Output:
	// src/discount/rules.go -> <nil>
	// src/discount-other/x -> caveat: paths: src/discount-other/x is not under src/discount/
	// src/discount/../refund -> caveat: paths: path src/discount/../refund has a .. segment
	// <nil>
	// caveat: tools: tool delete_file is not in tools=read_file,write_file
}

func ExampleScope_Add() {
	now := time.Date(2026, 11, 30, 3, 10, 0, 0, time.UTC)
	var s caveat.Scope
	for _, step := range []struct {
		block int
		arg   string
	}{
		{0, "tools=read_file,write_file"},
		{0, "paths=src/"},
		{0, "ops=invoke,delegate"},
		{1, "tools=read_file"},     // a subset: fine
		{1, "paths=src/discount/"}, // inside src/: fine
		{1, "ops=invoke"},          // no delegate: nothing may follow
		{2, "paths=src/"},
	} {
		c, _ := caveat.Parse(step.arg, now)
		fmt.Println(step.block, step.arg, "->", s.Add(step.block, c))
	}
	var t caveat.Scope
	a, _ := caveat.Parse("paths=src/discount/", now)
	b, _ := caveat.Parse("paths=src/", now)
	_ = t.Add(0, a)
	fmt.Println(t.Add(1, b))
	// Output:
	// 0 tools=read_file,write_file -> <nil>
	// 0 paths=src/ -> <nil>
	// 0 ops=invoke,delegate -> <nil>
	// 1 tools=read_file -> <nil>
	// 1 paths=src/discount/ -> <nil>
	// 1 ops=invoke -> <nil>
	// 2 paths=src/ -> caveat: ops: no delegate, so no block may follow block 1
	// caveat: paths: src/ is not under src/discount/
}
