package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/internal/jcs"
)

// referenceStrict is the split strictObject replaces: encoding/json's
// Decoder, token by token, with the folded names in a map.
func referenceStrict(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	fields := map[string]json.RawMessage{}
	folded := map[string]struct{}{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		f := jcs.FoldName(name)
		if _, dup := folded[f]; dup {
			return nil, errDupKey
		}
		folded[f] = struct{}{}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		fields[name] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return fields, nil
}

// referenceLoose is the split looseObject replaces.
func referenceLoose(data []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	if fields == nil {
		return nil, errNotObject
	}
	return fields, nil
}

// sameSplit reports how got differs from want ("" when it does not):
// both refuse, or both give the same names with the same values (up to
// the whitespace around a value, which every reader ignores).
func sameSplit(got, want map[string]json.RawMessage, gotErr, wantErr error) string {
	if (gotErr == nil) != (wantErr == nil) {
		return "accepted by one, refused by the other: " + errString(gotErr) + " / " + errString(wantErr)
	}
	if len(got) != len(want) {
		return "member counts differ"
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || !bytes.Equal(g, bytes.TrimSpace(v)) {
			return "member " + k + " differs"
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

var splitSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":1,"A":2}`, `{"a":1,"a":2}`, `{"K":1,"\u212a":2}`, `{"ſ":1,"S":2}`,
	`{"a":"x\"}y","b":[1,{"c":"]"}],"d":{"e":null}}`, `{"a" : true , "b":false ,"c":-1.5e+3}`,
	`{"\u0061":1,"a":2}`, `{"a\u0000b":1}`, "{\"\xff\":1,\"\xfe\":2}", "{\"\xff\":1}", `{"a":1}{}`, `{"a":1} x`,
	`[]`, `null`, `"s"`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, `{"a":[1,2}`, `{"a":"\x"}`, "{\"a\":\"\x01\"}", ``, `   `, `{`,
	`{"a":1e999}`, `{"a":01}`, `{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"x":0,"X":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"}}}`,
}

func TestSplitObject(t *testing.T) {
	for _, s := range splitSeeds {
		got, err := strictObject([]byte(s))
		want, werr := referenceStrict([]byte(s))
		if d := sameSplit(got, want, err, werr); d != "" {
			t.Errorf("strictObject(%q): %s", s, d)
		}
		got, err = looseObject([]byte(s))
		want, werr = referenceLoose([]byte(s))
		if d := sameSplit(got, want, err, werr); d != "" {
			t.Errorf("looseObject(%q): %s", s, d)
		}
	}
	for s, want := range map[string]error{`{"a":1,"A":2}`: errDupKey, `[1]`: errNotObject, `{"a":1`: errNotJSON} {
		if _, err := strictObject([]byte(s)); !errors.Is(err, want) {
			t.Errorf("strictObject(%q) = %v, want %v", s, err, want)
		}
	}
}

// Appending to a member cannot overwrite the next; parseMessage's
// members are its own, not slices of the line (a reader's buffer, reused
// for the next line).
func TestSplitObjectMembers(t *testing.T) {
	buf := []byte(`{"a":"xy","b":"zw"}`)
	m, err := strictObject(buf)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(m["a"], '!')
	if string(m["a"]) != `"xy"` || string(m["b"]) != `"zw"` {
		t.Fatalf("members changed: %q %q", m["a"], m["b"])
	}
	for _, strict := range []bool{true, false} {
		line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`)
		msg, err := parseMessage(line, strict)
		if err != nil {
			t.Fatal(err)
		}
		copy(line, strings.Repeat("#", len(line)))
		if string(msg.fields["method"]) != `"tools/list"` || string(msg.id) != "7" {
			t.Fatalf("the message changed with the line: %q", msg.fields)
		}
	}
}

func TestDecodeString(t *testing.T) {
	for _, raw := range []string{`"a"`, ` "tools/call" `, `"a\"b"`, `"\u00e9"`, "\"\xff\"", "\"a\x01\"", `null`, `1`, ``, `"`, `"a"b"`, `["a"]`} {
		var got, want string
		ok := decodeString([]byte(raw), &got)
		wok := json.Unmarshal([]byte(raw), &want) == nil
		if ok != wok || got != want {
			t.Errorf("decodeString(%q) = %q, %v; json.Unmarshal gives %q, %v", raw, got, ok, want, wok)
		}
	}
}

// referenceMarshal is the encoding marshalObject replaces.
func referenceMarshal(m map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestMarshalObject(t *testing.T) {
	for _, m := range []map[string]json.RawMessage{
		{}, {"b": json.RawMessage(`1`), "a": json.RawMessage(` { "x" : [ 1 , 2 ] } `)}, {"id": nil},
		{"a\"b": json.RawMessage(`"<&>"`), "\x01": json.RawMessage(`true`), "é": json.RawMessage(`"\u2028"`), "\u2028": json.RawMessage(`null`)},
		{"\xff": json.RawMessage("\"\xff\"")},
	} {
		if got, want := marshalObject(m), referenceMarshal(m); !bytes.Equal(got, want) {
			t.Errorf("marshalObject = %s, want %s", got, want)
		}
	}
}

// checkReplaceID holds replaceMember to its contract on data, whose
// members (looseObject's) are fields: with exactly one id member, the
// result has the same members but id, and the bytes around the value
// unchanged; otherwise it reports false.
func checkReplaceID(t *testing.T, data []byte, fields map[string]json.RawMessage) {
	t.Helper()
	ids := 0
	for range idMembers(data) {
		ids++
	}
	out, ok := replaceMember(data, "id", []byte(`"new"`))
	if ok != (ids == 1) {
		t.Fatalf("replaceMember(%q) = %v with %d id members", data, ok, ids)
	}
	if !ok {
		return
	}
	got, err := looseObject(out)
	if err != nil {
		t.Fatalf("replaceMember(%q) = %q: %v", data, out, err)
	}
	want := maps.Clone(fields)
	want["id"] = json.RawMessage(`"new"`)
	if d := sameSplit(got, want, nil, nil); d != "" {
		t.Fatalf("replaceMember(%q) = %q: %s", data, out, d)
	}
	s, e, _ := memberSpan(data, "id")
	if !bytes.Equal(out[:s], data[:s]) || !bytes.Equal(out[len(out)-(len(data)-e):], data[e:]) {
		t.Fatalf("replaceMember(%q) = %q changed bytes around the value", data, out)
	}
}

// idMembers yields each top-level member of a valid object whose name
// decodes to "id", by encoding/json's own tokens.
func idMembers(data []byte) func(func(int) bool) {
	return func(yield func(int) bool) {
		dec := json.NewDecoder(bytes.NewReader(data))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return
		}
		for i := 0; dec.More(); i++ {
			tok, err := dec.Token()
			if err != nil {
				return
			}
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return
			}
			if tok == "id" && !yield(i) {
				return
			}
		}
	}
}

func TestReplaceMember(t *testing.T) {
	for _, s := range []string{`{"id":1}`, ` { "a" : [1,{"id":2}] , "id" : 3 } `, `{"\u0069d":1}`, `{"id":1,"id":2}`, `{"x":1}`, `{}`} {
		m, err := looseObject([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		checkReplaceID(t, []byte(s), m)
	}
	if out, ok := replaceMember([]byte(` {"b":{"id":0}, "id" :7 ,"c":"id"}`), "id", []byte("42")); !ok || string(out) != ` {"b":{"id":0}, "id" :42 ,"c":"id"}` {
		t.Fatalf("replaceMember = %q, %v", out, ok)
	}
}

// FuzzSplitObject holds strictObject and looseObject to the encoding/json
// decoders they replace, decodeString to json.Unmarshal, and
// marshalObject, on what looseObject split, to json.Encoder.
func FuzzSplitObject(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := strictObject(data)
		want, werr := referenceStrict(data)
		if d := sameSplit(got, want, err, werr); d != "" {
			t.Fatalf("strictObject(%q): %s", data, d)
		}
		got, err = looseObject(data)
		want, werr = referenceLoose(data)
		if d := sameSplit(got, want, err, werr); d != "" {
			t.Fatalf("looseObject(%q): %s", data, d)
		}
		if err == nil && !bytes.Equal(marshalObject(got), referenceMarshal(got)) {
			t.Fatalf("marshalObject(%q) = %s, json.Encoder gives %s", data, marshalObject(got), referenceMarshal(got))
		}
		if err == nil {
			checkReplaceID(t, data, got)
		}
		// A member value is split without json.Valid: on valid text it
		// splits alike; on any other it never reads past it.
		mgot, merr := memberObject(data, true)
		sgot, serr := strictObject(data)
		if json.Valid(data) {
			if d := sameSplit(mgot, sgot, merr, serr); d != "" {
				t.Fatalf("memberObject(%q): %s", data, d)
			}
		}
		memberSpan(data, "id")
		var s, ws string
		ok := decodeString(data, &s)
		wok := json.Unmarshal(data, &ws) == nil
		if ok != wok || s != ws {
			t.Fatalf("decodeString(%q) = %q, %v; json.Unmarshal gives %q, %v", data, s, ok, ws, wok)
		}
	})
}
