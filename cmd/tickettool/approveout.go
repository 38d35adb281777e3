package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tickettool/tickettool/internal/keyfile"
)

// The discharges approve writes with --out PATH. The path is often one
// an agent was told before the person runs approve (the mcp guard's
// discharge directory): whatever is at PATH then is the agent's doing,
// so PATH is created exclusively, never through a link, and a file or
// link already there is refused rather than written through.

// checkApproveOut refuses --out - and a PATH that already exists (a
// file, a directory or a link, dangling too), before anything is signed.
// It only spares the person a question: writeApproveOut decides.
func checkApproveOut(path string) error {
	switch {
	case path == "":
		return nil
	case path == "-":
		return usageErr("--out - is standard output: leave --out out to print the discharges there")
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return outExists(path)
	}
	return nil
}

// writeApproveOut creates path, mode 0600, holding the discharges one per
// line: exclusively, never following a link (keyfile.Create).
func writeApproveOut(path string, discharges []string) error {
	err := keyfile.Create("discharge file", path, []byte(strings.Join(discharges, "\n")+"\n"), 0o600)
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyfile.ErrExists):
		return outExists(path)
	case errors.As(err, &pe):
		return fail(exitUsage, err)
	}
	return err
}

func outExists(path string) error {
	return fail(exitUsage, fmt.Errorf("--out %s already exists (a file, a directory or a link): nothing was written", quoteArg(path)),
		"approve never writes through an existing name, which another program may have planted: remove it, or choose another --out")
}
