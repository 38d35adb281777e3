package mcp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/token"
)

// The discharge directory (Config.DischargeDir): the guard reads
// discharges from its *.dis files and writes there the arguments of
// calls refused for an approval.

// fileRead is what readDischargeFile found in one file.
type fileRead struct {
	info      fs.FileInfo // the file read (nil when skipped whole)
	malformed int         // lines that are not discharges (skipped)
}

// readDischargeFile adds the discharges of one file, one per line, to
// pool. The file must be a regular file, reached without a symbolic link
// (openDischarge), of at most maxDischargeFileBytes, every line at most
// token.MaxDischargeTextBytes: otherwise none of its discharges is added,
// the log says why, and the result's info is nil.
func (p *Proxy) readDischargeFile(path string, pool map[string]*token.Discharge) fileRead {
	name := filepath.Base(path)
	f, err := openDischarge(path)
	if err != nil {
		p.log.Printf("discharge file %s: skipped: %v", name, err)
		return fileRead{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		p.log.Printf("discharge file %s: skipped: %v", name, err)
		return fileRead{}
	}
	if !fi.Mode().IsRegular() {
		p.log.Printf("discharge file %s: skipped: not a regular file", name)
		return fileRead{}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDischargeFileBytes+1))
	switch {
	case err != nil:
		p.log.Printf("discharge file %s: skipped: %v", name, err)
		return fileRead{}
	case len(data) > maxDischargeFileBytes:
		p.log.Printf("discharge file %s: skipped: longer than %d bytes", name, maxDischargeFileBytes)
		return fileRead{}
	}
	found := map[string]*token.Discharge{}
	r := fileRead{info: fi}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, token.MaxDischargeTextBytes+2)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		d, err := token.ParseDischarge(line)
		if err != nil {
			p.log.Printf("discharge file %s line %d: skipped: %v", name, n, err)
			r.malformed++
			continue
		}
		found[line] = d
	}
	if err := sc.Err(); err != nil {
		p.log.Printf("discharge file %s: skipped: line %d: longer than a discharge (%d bytes)", name, n+1, token.MaxDischargeTextBytes)
		return fileRead{}
	}
	maps.Copy(pool, found)
	return r
}

// argsName names the files of one refused call in the discharge
// directory (its arguments, NAME.json, and the discharge, NAME.dis): the
// approval's code and a digest of the tool and the arguments, so that the
// discharges of two tools called with the same arguments do not replace
// each other.
func argsName(code, tool string, digest []byte) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(digest)
	return code + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// dischargeNames are the names of the discharge files the guard announces
// for the refused calls named name (argsName): NAME.dis, then NAME-2.dis
// to NAME-N.dis (N = maxAnnouncedNames) for when the earlier ones exist
// (approve --out never replaces a file). The guard reads these first for
// a call of that name, before the rest of the directory.
func dischargeNames(name string) []string {
	out := []string{name + DischargeSuffix}
	for i := 2; i <= maxAnnouncedNames; i++ {
		out = append(out, name+"-"+strconv.Itoa(i)+DischargeSuffix)
	}
	return out
}

// freeDischargeName returns the first of dischargeNames(name) that does
// not exist in the discharge directory (not even as a link), or the first
// when all exist: approve --out then refuses it, and the person sees why.
func (p *Proxy) freeDischargeName(name string) string {
	names := dischargeNames(name)
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(p.cfg.DischargeDir, n)); errors.Is(err, fs.ErrNotExist) {
			return n
		}
	}
	return names[0]
}

// writeArgs writes a call's arguments to NAME.json in the discharge
// directory, mode 0600, replacing any file of that name atomically, and
// returns its path.
func (p *Proxy) writeArgs(name string, args []byte) (string, error) {
	path := filepath.Join(p.cfg.DischargeDir, name+".json")
	f, err := os.CreateTemp(p.cfg.DischargeDir, ".args-*")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(append(bytes.Clone(args), '\n'))
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", werr
	}
	p.pruneArgs(name + ".json")
	return path, nil
}

// argsFile matches the names writeArgs gives (argsName): the approval's
// code and 16 hex digits.
var argsFile = regexp.MustCompile(`^[A-Z2-7]{5}-[A-Z2-7]{5}-[0-9a-f]{16}\.json$`)

// pruneArgs keeps at most maxArgsFiles argument files in the discharge
// directory, removing the oldest by modification time (then by name),
// never keep, the one just written. Only regular files named as writeArgs
// names them are counted or removed; nothing else in the directory is
// touched.
func (p *Proxy) pruneArgs(keep string) {
	entries, err := os.ReadDir(p.cfg.DischargeDir)
	if err != nil {
		p.log.Printf("discharge directory: %v", err)
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() || !argsFile.MatchString(e.Name()) || e.Name() == keep {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, file{e.Name(), fi.ModTime()})
		}
	}
	extra := len(files) + 1 - maxArgsFiles
	if extra <= 0 {
		return
	}
	slices.SortFunc(files, func(a, b file) int {
		if c := a.mod.Compare(b.mod); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	for _, f := range files[:extra] {
		if err := os.Remove(filepath.Join(p.cfg.DischargeDir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			p.log.Printf("discharge directory: %v", err)
		}
	}
}
