package mcp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// dirsHeader starts the text of the reference filesystem server's answer
// to list_allowed_directories (2026.8.31, index.js): the header, then one
// directory a line; structuredContent.content holds the same text.
const dirsHeader = "Allowed directories:"

// filterDirs returns the answer to a directory listing (a tool the profile
// marks ListsDirectories) with only what lies inside the ticket's paths: a
// directory of the server's that every paths caveat admits (as given and as
// resolved), and each absolute prefix of the ticket's narrowest paths
// caveat that lies inside a directory of the server's. So the agent's usual
// first call works and reveals no directory outside the ticket. An answer
// that cannot be read is replaced by an error result: unfiltered, it could
// reveal more.
func (p *Proxy) filterDirs(result json.RawMessage) json.RawMessage {
	st := p.state()
	if len(st.paths) == 0 {
		return nil
	}
	fields, err := strictObject(result)
	var content []map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(fields["content"], &content)
	}
	if err != nil || len(content) != 1 {
		return dirsUnreadable()
	}
	var text string
	if json.Unmarshal(content[0]["text"], &text) != nil || !strings.HasPrefix(text, dirsHeader) {
		return dirsUnreadable()
	}
	kept := p.keptDirs(st, strings.Split(strings.TrimPrefix(text, dirsHeader), "\n"))
	text = dirsHeader + "\n" + strings.Join(kept, "\n")
	content[0]["text"] = marshal(text)
	fields["content"] = marshal(content)
	if _, ok := fields["structuredContent"]; ok {
		fields["structuredContent"] = marshal(map[string]string{"content": text})
	}
	return marshal(fields)
}

func (p *Proxy) keptDirs(st *ticketState, dirs []string) []string {
	var kept []string
	add := func(d string) {
		if !slices.Contains(kept, d) {
			kept = append(kept, d)
		}
	}
	narrowest := st.paths[len(st.paths)-1].List
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if paths, err := withResolved([]string{d}, ""); err == nil && st.pathsAllowed(paths) {
			add(d)
			continue
		}
		for _, prefix := range narrowest {
			if strings.HasPrefix(prefix, strings.TrimSuffix(d, "/")+"/") {
				add(strings.TrimSuffix(prefix, "/"))
			}
		}
	}
	return kept
}

func dirsUnreadable() json.RawMessage {
	const msg = "mcp: the server's list of allowed directories could not be read, so it was not passed on"
	return marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": msg}}, "isError": true})
}
