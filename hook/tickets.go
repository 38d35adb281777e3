package hook

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

// MainTicket is the main ticket's file name in a ticket directory; a
// subagent's is its agent type followed by TicketSuffix.
const (
	MainTicket   = "main.ticket"
	TicketSuffix = ".ticket"
)

// Tickets says where the hook's ticket comes from: exactly one of File
// (a file holding the ticket), Text (the ticket itself, from the
// environment) and Dir (a directory holding main.ticket and one
// AGENT_TYPE.ticket per subagent type that has its own).
type Tickets struct {
	File, Text, Dir string
}

// chosen is the ticket a call is checked against.
type chosen struct {
	ticket *token.Ticket
	main   *token.Ticket // with Dir, for a subagent's own ticket: the main ticket it must narrow
	from   string        // where it was read, for messages
}

// ValidAgentType reports whether an agent type can name a ticket file:
// 1 to 128 of A-Z a-z 0-9 _ . -, not starting with ".", and not "main".
func ValidAgentType(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' || s == "main" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// choose reads the ticket for a call made by agentType ("" for the main
// agent). With Dir, a subagent whose type names an existing
// DIR/AGENT_TYPE.ticket gets that ticket, every other call DIR/main.ticket
// (an agent type that cannot name a file has none).
func (s *Tickets) choose(agentType string) (*chosen, error) {
	switch {
	case s.Dir != "":
		main := filepath.Join(s.Dir, MainTicket)
		if ValidAgentType(agentType) {
			own := filepath.Join(s.Dir, agentType+TicketSuffix)
			t, err := readTicket(own)
			switch {
			case err == nil:
				m, err := readTicket(main)
				if err != nil {
					return nil, err
				}
				return &chosen{ticket: t, main: m, from: own}, nil
			case !errors.Is(err, fs.ErrNotExist):
				return nil, err
			}
		}
		t, err := readTicket(main)
		return &chosen{ticket: t, from: main}, err
	case s.File != "":
		t, err := readTicket(s.File)
		return &chosen{ticket: t, from: s.File}, err
	case s.Text != "":
		t, err := token.Parse(strings.TrimSpace(s.Text))
		if err != nil {
			return nil, fmt.Errorf("the ticket in the environment: %w", err)
		}
		return &chosen{ticket: t, from: "the environment"}, nil
	}
	return nil, errors.New("no ticket: give --ticket-file, --ticket-dir or TICKETTOOL_TICKET")
}

// readTicket reads a ticket file (at most maxTicketFileBytes).
func readTicket(path string) (*token.Ticket, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ticket %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTicketFileBytes+1))
	if err == nil && len(b) > maxTicketFileBytes {
		err = fmt.Errorf("over %d bytes", maxTicketFileBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("ticket %s: %w", path, err)
	}
	t, err := token.Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("ticket %s: %w", path, err)
	}
	return t, nil
}

// narrows checks that a subagent's ticket belongs to the main ticket's
// family and is no wider: both chains verify under the guard's keys, and
// the subagent's begins with every block of the main ticket (block ids
// chain each block's signature to the one before, so equal ids are equal
// blocks; the verifier has checked that each block it appends narrows).
// It returns "" or why not.
func narrows(g *guard.Guard, sub, main *token.Ticket, now time.Time) (string, error) {
	ps, err := g.PrepareTicket(sub)
	if err != nil {
		return "", err
	}
	pm, err := g.PrepareTicket(main)
	if err != nil {
		return "", err
	}
	ds, dm := ps.Validate(now), pm.Validate(now)
	switch {
	case dm.BlockIDs == nil:
		return "the main ticket does not verify", nil
	case ds.BlockIDs == nil:
		return "the subagent's ticket does not verify", nil
	case len(ds.BlockIDs) < len(dm.BlockIDs) || !slices.Equal(ds.BlockIDs[:len(dm.BlockIDs)], dm.BlockIDs):
		return "the subagent's ticket is not attenuated from the main ticket (another family, or not a narrowing of it)", nil
	}
	return "", nil
}
