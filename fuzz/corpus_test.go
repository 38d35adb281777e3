package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/wire"
	tk "github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Seed files are testdata/fuzz/<Target>/seed-<name>, in the "go test fuzz
// v1" format. Files without the seed- prefix (inputs the fuzzer found and
// wrote there) are never touched by the generator.
const (
	writeSeedsEnv = "TICKETTOOL_WRITE_SEEDS"
	seedPrefix    = "seed-"
)

func seedDir(target string) string { return filepath.Join("testdata", "fuzz", target) }

// marshalCorpus encodes fuzz arguments as Go's fuzzing engine does
// (internal/fuzz.marshalCorpusFile) for the types used here.
func marshalCorpus(args ...any) []byte {
	b := bytes.NewBufferString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(b, "[]byte(%q)\n", v)
		case string:
			fmt.Fprintf(b, "string(%q)\n", v)
		case byte:
			fmt.Fprintf(b, "byte(%q)\n", v)
		case uint16, uint32, uint64:
			fmt.Fprintf(b, "%T(%v)\n", v, v)
		default:
			panic(fmt.Sprintf("unsupported corpus type %T", a))
		}
	}
	return b.Bytes()
}

// unmarshalCorpus decodes a corpus file written by marshalCorpus or by the
// fuzzing engine.
func unmarshalCorpus(data []byte) ([]any, error) {
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || strings.TrimSuffix(lines[0], "\r") != "go test fuzz v1" {
		return nil, errors.New("not a go test fuzz v1 file")
	}
	var args []any
	for _, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		e, err := parser.ParseExpr(line)
		if err != nil {
			return nil, err
		}
		call, ok := e.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return nil, fmt.Errorf("bad line %q", line)
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok {
			return nil, fmt.Errorf("bad literal in %q", line)
		}
		typ := line[:strings.IndexByte(line, '(')]
		switch typ {
		case "[]byte", "string":
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return nil, err
			}
			if typ == "string" {
				args = append(args, s)
			} else {
				args = append(args, []byte(s))
			}
		case "byte", "uint8":
			if lit.Kind == token.CHAR {
				s, err := strconv.Unquote(lit.Value)
				if err != nil || len(s) == 0 {
					return nil, fmt.Errorf("bad byte in %q", line)
				}
				r := []rune(s)
				if len(s) == 1 {
					args = append(args, s[0])
				} else {
					args = append(args, byte(r[0]))
				}
				continue
			}
			n, err := strconv.ParseUint(lit.Value, 0, 8)
			if err != nil {
				return nil, err
			}
			args = append(args, byte(n))
		case "uint16", "uint32", "uint64":
			bits, _ := strconv.Atoi(typ[4:])
			n, err := strconv.ParseUint(lit.Value, 0, bits)
			if err != nil {
				return nil, err
			}
			switch bits {
			case 16:
				args = append(args, uint16(n))
			case 32:
				args = append(args, uint32(n))
			default:
				args = append(args, n)
			}
		default:
			return nil, fmt.Errorf("unsupported type in %q", line)
		}
	}
	return args, nil
}

// corpusFile is one file of a target's corpus directory.
type corpusFile struct {
	name string
	args []any
}

func readCorpus(t testing.TB, target string) []corpusFile {
	t.Helper()
	ents, err := os.ReadDir(seedDir(target))
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	var out []corpusFile
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(seedDir(target), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		args, err := unmarshalCorpus(data)
		if err != nil {
			t.Fatalf("%s/%s: %v", target, e.Name(), err)
		}
		out = append(out, corpusFile{e.Name(), args})
	}
	return out
}

// TestWriteSeeds regenerates the seed corpora:
//
//	TICKETTOOL_WRITE_SEEDS=1 go test ./fuzz -run TestWriteSeeds
//
// It replaces every seed- file of each target and leaves other files (the
// fuzzer's finds) alone.
func TestWriteSeeds(t *testing.T) {
	if os.Getenv(writeSeedsEnv) != "1" {
		t.Skipf("set %s=1 to regenerate testdata/fuzz", writeSeedsEnv)
	}
	for _, target := range targetNames {
		dir := seedDir(target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(dir, seedPrefix+"*"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range allSeeds()[target] {
			if err := os.WriteFile(filepath.Join(dir, seedPrefix+s.name), marshalCorpus(s.args...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: %d seeds", target, len(allSeeds()[target]))
	}
}

// TestSeedsAreCurrent checks that the committed seed files are exactly what
// the generator writes: the corpora are reproducible, and a change of the
// format that changes them is noticed (regenerate with TestWriteSeeds).
func TestSeedsAreCurrent(t *testing.T) {
	for _, target := range targetNames {
		want := map[string][]byte{}
		for _, s := range allSeeds()[target] {
			if _, dup := want[seedPrefix+s.name]; dup {
				t.Errorf("%s: two seeds named %q", target, s.name)
			}
			want[seedPrefix+s.name] = marshalCorpus(s.args...)
		}
		files, _ := filepath.Glob(filepath.Join(seedDir(target), seedPrefix+"*"))
		for _, f := range files {
			name := filepath.Base(f)
			got, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if w, ok := want[name]; !ok {
				t.Errorf("%s/%s: not generated any more", target, name)
			} else if !bytes.Equal(got, w) {
				t.Errorf("%s/%s: differs from the generator's output", target, name)
			}
			delete(want, name)
		}
		for name := range want {
			t.Errorf("%s/%s: generated but not committed", target, name)
		}
	}
	if t.Failed() {
		t.Logf("regenerate with %s=1 go test ./fuzz -run TestWriteSeeds", writeSeedsEnv)
	}
}

// TestSeedCorpora checks that every target of this package has a
// committed corpus of at least 5 files, and that no target is missing
// from targetNames.
func TestSeedCorpora(t *testing.T) {
	for _, target := range targetNames {
		if n := len(readCorpus(t, target)); n < 5 {
			t.Errorf("%s: %d seed files, want at least 5", target, n)
		}
	}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*_test.go")
	var found []string
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fd.Name.Name, "Fuzz") && fd.Recv == nil {
				found = append(found, fd.Name.Name)
			}
		}
	}
	slices.Sort(found)
	want := slices.Clone(targetNames)
	slices.Sort(want)
	if !slices.Equal(found, want) {
		t.Errorf("fuzz targets %v, targetNames %v", found, want)
	}
}

// decodeOp returns, for one corpus entry of target, the size of its input
// and the decode (or end-to-end check) the target performs on it.
func decodeOp(target string, args []any) (int, func()) {
	switch target {
	case "FuzzParseText":
		s := args[0].(string)
		return len(s), func() { tk.Parse(s) }
	case "FuzzDecodeTicket":
		b := args[0].([]byte)
		return len(b), func() { tk.Decode(b) }
	case "FuzzDecodeBlock":
		b := pick(blockTemplates, args[1].(byte)).wrap(args[0].([]byte))
		return len(b), func() { tk.Decode(b) }
	case "FuzzParseCaveat":
		s := args[0].(string)
		return len(s), func() { caveat.Parse(s, now) }
	case "FuzzDecodeCaveatValue":
		k, b := caveat.Kind(args[0].(uint64)), args[1].([]byte)
		return len(b), func() { wire.DecodeCaveat(k, b) }
	case "FuzzVerify":
		s, c := args[0].(string), pick(verifyCases, args[1].(byte))
		return len(s), func() {
			if t, err := tk.Parse(s); err == nil {
				verify.Verify(t, c.req, keys.ring, now, verifyOptions)
			}
		}
	case "FuzzCheckDPoP":
		s, c := args[0].(string), pick(dpopCases, args[1].(byte))
		return len(s), func() { dpop.Verify(s, c.exp, c.now) }
	case "FuzzDecodeRecord":
		b := args[0].([]byte)
		return len(b), func() { chain.Decode(b) }
	case "FuzzVerifyLog":
		b := args[0].([]byte)
		return len(b), func() { chain.VerifyBytes(b, keys.logEd.Verifying(), origin) }
	case "FuzzCheckpoint":
		b := args[0].([]byte)
		return len(b), func() {
			chain.ParseCheckpoint(string(b))
			chain.OpenCheckpoint(b, keys.logEd.Verifying(), origin)
		}
	}
	panic("unknown target " + target)
}

// TestDecodeAllocBound measures every committed corpus entry of every
// target: one decode of n bytes allocates at most allocMultiple×n +
// allocSlack bytes (alloc_test.go).
func TestDecodeAllocBound(t *testing.T) {
	if testing.Short() {
		t.Skip("measures every seed")
	}
	for _, target := range targetNames {
		var worst, perByte float64
		var worstName string
		for _, f := range readCorpus(t, target) {
			n, op := decodeOp(target, f.args)
			op()
			got := min(allocated(op), allocated(op))
			if got > allocBound(n) {
				t.Errorf("%s/%s: %d input bytes allocate %d bytes, over %d×%d + %d", target, f.name, n, got, allocMultiple, n, allocSlack)
			}
			if r := float64(got) / float64(allocBound(n)); r > worst {
				worst, worstName = r, f.name
			}
			if n >= 4<<10 {
				perByte = max(perByte, float64(got)/float64(n))
			}
		}
		t.Logf("%-22s worst %3.0f%% of the bound (%s); largest bytes allocated per input byte (inputs >= 4 KiB): %.1f",
			target, 100*worst, worstName, perByte)
	}
}

// TestSeedExpectations checks the seeds do what their names say, so that
// the corpora hold what the issue asks for (valid inputs, the limits and
// one past them, every non-canonical class): "valid-" and "limit-ok-"
// seeds are accepted, "noncanon-" and "limit-over-" seeds refused (for
// FuzzVerify: "valid-" allowed, "flip-" refused; for FuzzVerifyLog,
// FuzzCheckDPoP and FuzzCheckpoint "flip-" refused).
func TestSeedExpectations(t *testing.T) {
	for _, target := range targetNames {
		counts := map[string]int{}
		for _, s := range allSeeds()[target] {
			want := ""
			for _, p := range []string{"valid-", "limit-ok-", "noncanon-", "limit-over-", "flip-"} {
				if strings.HasPrefix(s.name, p) {
					want = p
				}
			}
			if want == "" {
				continue
			}
			counts[want]++
			accepted := seedAccepted(target, s.args)
			if wantOK := want == "valid-" || want == "limit-ok-"; accepted != wantOK {
				t.Errorf("%s/%s: accepted=%v", target, s.name, accepted)
			}
		}
		t.Logf("%-22s %v", target, counts)
	}
}

// seedAccepted reports whether the target's decoder (or verifier) accepts
// the seed; for the targets with a fixed-input mutation (x != 0) it
// reports whether the mutated input is accepted.
func seedAccepted(target string, args []any) bool {
	switch target {
	case "FuzzParseText":
		_, err := tk.Parse(args[0].(string))
		return err == nil
	case "FuzzDecodeTicket":
		_, err := tk.Decode(args[0].([]byte))
		return err == nil
	case "FuzzDecodeBlock":
		_, err := tk.Decode(pick(blockTemplates, args[1].(byte)).wrap(args[0].([]byte)))
		return err == nil
	case "FuzzParseCaveat":
		_, err := caveat.Parse(args[0].(string), now)
		return err == nil
	case "FuzzDecodeCaveatValue":
		_, err := wire.DecodeCaveat(caveat.Kind(args[0].(uint64)), args[1].([]byte))
		return err == nil
	case "FuzzVerify":
		i, off, x := args[1].(byte), args[2].(uint32), args[3].(byte)
		c := pick(verifyCases, i)
		text := args[0].(string)
		if x != 0 {
			m, _ := mutate(c.tk.Encode(), uint64(off), x)
			t, err := tk.Decode(m)
			return err == nil && mustVerify(t, c).Allowed
		}
		t, err := tk.Parse(text)
		return err == nil && mustVerify(t, c).Allowed
	case "FuzzCheckDPoP":
		c := pick(dpopCases, args[1].(byte))
		proof := args[0].(string)
		if x := args[3].(byte); x != 0 {
			m, _ := mutate([]byte(c.valid), uint64(args[2].(uint16)), x)
			proof = string(m)
		}
		_, err := dpop.Verify(proof, c.exp, c.now)
		return err == nil
	case "FuzzDecodeRecord":
		_, err := chain.Decode(args[0].([]byte))
		return err == nil
	case "FuzzVerifyLog":
		fl := pick(fixedLogs, args[1].(byte))
		data := args[0].([]byte)
		if x := args[3].(byte); x != 0 {
			data, _ = mutate(fl.data, uint64(args[2].(uint32)), x)
		}
		_, err := chain.VerifyBytes(data, fl.key.Verifying(), origin)
		return err == nil
	case "FuzzCheckpoint":
		fl := pick(fixedLogs, args[1].(byte))
		data := args[0].([]byte)
		if x := args[3].(byte); x != 0 {
			data, _ = mutate(fl.cp, uint64(args[2].(uint16)), x)
		}
		_, err := chain.OpenCheckpoint(data, fl.key.Verifying(), origin)
		return err == nil
	}
	panic("unknown target " + target)
}
