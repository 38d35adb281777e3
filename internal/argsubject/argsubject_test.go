package argsubject

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestExtract(t *testing.T) {
	spec := Spec{Paths: []string{"path", "source"}, PathLists: []string{"paths"}, URLs: []string{"url"}}
	cases := []struct {
		name, args   string
		paths, urls  []string
		alias, wrong bool
	}{
		{"none", `{}`, nil, nil, false, false},
		{"null is absent", `{"path":null}`, nil, nil, false, false},
		{"one of each", `{"path":"/a","url":"https://x/"}`, []string{"/a"}, []string{"https://x/"}, false, false},
		{"list after single", `{"paths":["/b","/c"],"source":"/a"}`, []string{"/a", "/b", "/c"}, nil, false, false},
		{"number", `{"path":1}`, nil, nil, false, true},
		{"list of numbers", `{"paths":[1]}`, nil, nil, false, true},
		{"upper case alias", `{"Path":"/etc"}`, nil, nil, true, false},
		{"long s alias", `{"ſource":"/etc"}`, nil, nil, true, false},
		{"unrelated member", `{"mode":"x"}`, nil, nil, false, false},
	}
	for _, tc := range cases {
		var args map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
			t.Fatal(err)
		}
		paths, urls, err := Extract(spec, args)
		switch {
		case tc.alias:
			if !errors.Is(err, ErrAlias) {
				t.Errorf("%s: err %v, want ErrAlias", tc.name, err)
			}
		case tc.wrong:
			if err == nil || errors.Is(err, ErrAlias) {
				t.Errorf("%s: err %v, want a type error", tc.name, err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !slices.Equal(paths, tc.paths) || !slices.Equal(urls, tc.urls):
			t.Errorf("%s: got %q %q, want %q %q", tc.name, paths, urls, tc.paths, tc.urls)
		}
	}
}
