package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestShippedFilesystemProfile: the shipped filesystem profile is
// Filesystem(), and every shipped profile reads back from its String.
func TestShippedFilesystemProfile(t *testing.T) {
	got, err := ShippedProfile("filesystem")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Filesystem()) {
		t.Errorf("shipped filesystem profile differs from Filesystem():\n%s", got)
	}
	for _, name := range ShippedProfiles() {
		p, err := ShippedProfile(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := ParseProfile([]byte(p.String()))
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Errorf("%s: String does not read back: %v", name, err)
		}
	}
	if _, err := ShippedProfile("../profilefile"); err == nil {
		t.Error("a name outside the shipped profiles was read")
	}
}

func TestParseProfileRefuses(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"name":"x","tools":{"t":{"path":["/a"]}}}`, "unknown field"},
		{`{"name":"x y","tools":{}}`, "profile name"},
		{`{"name":"x","tools":{"t":{"paths":["a"]}}}`, "must start with /"},
		{`{"name":"x","tools":{"t":{"paths":["/a~2"]}}}`, "~ must be followed"},
		{`{"name":"x","tools":{"t":{"paths":["/a"],"urls":["/a"]}}}`, "listed twice"},
		{`{"name":"x","tools":{}} {}`, "data after"},
	} {
		if _, err := ParseProfile([]byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestProfileSubjects: pointers reach nested arguments, hosts become
// https URLs, and a value of the wrong type, a host that is more than a
// host, or a look-alike name at any level is an error.
func TestProfileSubjects(t *testing.T) {
	p, err := ParseProfile([]byte(`{"name":"t","tools":{"t":{
		"paths":["/a/b~1c","/~1slash"],"pathLists":["/list"],"urls":["/u"],"hosts":["/opt/host"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args        string
		paths, urls []string
		err         string
	}{
		{`{"a":{"b/c":"/x"},"list":["/y"],"u":"https://e.com/","opt":{"host":"api.example.com:8443"}}`,
			[]string{"/x", "/y"}, []string{"https://e.com/", "https://api.example.com:8443/"}, ""},
		{`{}`, nil, nil, ""},
		// An argument whose name starts with "/" is that argument, not
		// the one named without it.
		{`{"/slash":"/p","slash":"/q"}`, []string{"/p"}, nil, ""},
		{`{"a":null}`, nil, nil, ""},
		{`{"a":"str"}`, nil, nil, `argument "/a" must be an object`},
		{`{"a":{"b/c":7}}`, nil, nil, `argument "/a/b~1c" must be a string`},
		{`{"opt":{"host":"evil.com/@good.com"}}`, nil, nil, "must be a host name"},
		{`{"opt":{"host":"https://good.com"}}`, nil, nil, "must be a host name"},
		{`{"opt":{"HOST":"good.com"}}`, nil, nil, "in another case"},
		{`{"A":{"b/c":"/x"}}`, nil, nil, "in another case"},
	} {
		var args map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
			t.Fatal(err)
		}
		paths, urls, err := p.subjects("t", args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.args, err)
		case !reflect.DeepEqual(paths, tc.paths) || !reflect.DeepEqual(urls, tc.urls):
			t.Errorf("%s: got %q %q", tc.args, paths, urls)
		}
	}
}
