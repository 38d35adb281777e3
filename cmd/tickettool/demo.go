package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

const demoUsage = `
usage: tickettool demo

Runs the whole story in a fresh temporary directory and narrates it: keys,
a ticket minted from a person's intent and bound to an agent's key, a
narrower ticket for a subagent bound to its own key, allowed calls, refused
calls with the caveat named, receipts written and verified, tampered
receipt logs caught, and an approval: the agent drafts a post, posting is
refused pending the pricing lead's approval, the lead approves that exact
post, it goes through once, and a second post with the same approval is
refused; last, a coding agent's recorded tool calls decided by tickettool
hook, a subagent's narrower ticket among them. The clock is fixed (2026-06-01T10:00:00Z) so the story
reads the same every time; keys and ids are fresh. Removes the directory at
the end. Exit status 1 if any step does not turn out as narrated.

Example:
  tickettool demo
`

// demoT0 is the demo's fixed clock.
var demoT0 = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

type demo struct {
	w     io.Writer
	dir   string
	names map[string]string // long values (tickets, proofs) -> $NAME shown instead
}

func runDemo(e *env, args []string) error {
	fs := newFlags(e, "demo", demoUsage)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("demo takes no arguments")
	}
	dir, err := os.MkdirTemp("", "tickettool-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer os.RemoveAll(dir)
	d := &demo{w: e.stdout, dir: dir, names: map[string]string{}}
	if err := d.story(); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	d.say("\nThe end. The temporary directory is removed.")
	return nil
}

func (d *demo) say(format string, args ...any) { fmt.Fprintf(d.w, format+"\n", args...) }

func (d *demo) path(name string) string { return filepath.Join(d.dir, name) }

func at(sec int) string { return demoT0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339) }

// storeCommands are the commands that keep state in a store. The demo
// promises to work in its temporary directory only, so each of them must
// name the directory's store: without --store they would write to the
// user's default store under $HOME.
var storeCommands = map[string]bool{"verify": true, "spent": true, "revoke": true, "mcp": true}

// tt runs one tickettool command in-process, shows it as a person would
// type it and what it prints, and checks its exit status. A command that
// uses a store without --store is an error, never run.
func (d *demo) tt(want int, args ...string) (string, error) {
	if storeCommands[args[0]] && !slices.Contains(args, "--store") {
		return "", fmt.Errorf("tickettool %s: no --store: the demo keeps its state in its temporary directory", args[0])
	}
	shown := make([]string, len(args))
	for i, a := range args {
		if n, ok := d.names[a]; ok {
			shown[i] = n
			continue
		}
		a = strings.ReplaceAll(a, d.dir+string(filepath.Separator), "")
		if strings.ContainsAny(a, " \"'$*") {
			a = "'" + a + "'"
		}
		shown[i] = a
	}
	d.say("\n$ tickettool %s", strings.Join(shown, " "))
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSuffix(line, "\n")
		if len(line) > 100 && !strings.Contains(line, " ") {
			line = line[:40] + "…  (" + fmt.Sprint(len(line)) + " characters)"
		}
		d.say("%s", line)
	}
	for line := range strings.Lines(errb.String()) {
		line = strings.ReplaceAll(line, d.dir+string(filepath.Separator), "")
		d.say("%s", strings.TrimSuffix(line, "\n"))
	}
	if code != want {
		return "", fmt.Errorf("tickettool %s: exit status %d, want %d", args[0], code, want)
	}
	if code != 0 {
		d.say("(exit status %d)", code)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// keep remembers a long value under a $NAME for display.
func (d *demo) keep(v, name string) string {
	d.names[v] = "$" + name
	d.say("   (saved as $%s)", name)
	return v
}

func (d *demo) story() error {
	p := d.path
	d.say("tickettool demo: a person's request, an agent, a subagent, and every call checked offline.")
	d.say("Working in a fresh temporary directory; the clock is fixed at %s.", at(0))

	d.say("\n== 1. Keys")
	d.say("A root key mints tickets (verifiers need only its .pub), a receipt key signs the")
	d.say("decision log, and the agent and its subagent each hold a DPoP key of their own.")
	steps := [][]string{
		{"keygen", "--alg", "ed25519", "--out", p("root.key"), "--kid", "demo-root"},
		{"keygen", "--alg", "ed25519", "--out", p("receipts.key"), "--kid", "demo-receipts"},
		{"holder", "--alg", "eddsa", "--out", p("agent.jwk")},
		{"holder", "--alg", "es256", "--out", p("subagent.jwk")},
	}
	for _, s := range steps {
		if _, err := d.tt(0, s...); err != nil {
			return err
		}
	}

	intent := "fix the rounding bug in the discount code"
	d.say("\n== 2. A person asks: %q", intent)
	d.say("The harness mints a ticket from that intent, bound to the agent's key.")
	out, err := d.tt(0, "mint", "--key", p("root.key"), "--bind", p("agent.jwk.pub"),
		"intent="+intent, "tools=read_file,write_file,run_tests", "ops=invoke,delegate",
		"paths=src/discount/", "until="+at(3600), "--now", at(0))
	if err != nil {
		return err
	}
	agentTicket := d.keep(out, "AGENT_TICKET")

	d.say("\n== 3. The agent hands the reading to a subagent")
	d.say("It appends a narrower block: read_file only, at most 3 calls, 10 minutes, rebound to the")
	d.say("subagent's key. Rebinding a bound ticket needs the current holder's key, so a thief can't.")
	out, err = d.tt(0, "attenuate", "--bind", p("subagent.jwk.pub"), "--holder-key", p("agent.jwk"),
		agentTicket, "tools=read_file", "calls=3", "until="+at(600), "--now", at(0))
	if err != nil {
		return err
	}
	subTicket := d.keep(out, "SUB_TICKET")
	if _, err := d.tt(0, "inspect", "--now", at(0), subTicket); err != nil {
		return err
	}
	d.say("\nWidening is refused up front, naming the caveat:")
	if _, err := d.tt(1, "attenuate", subTicket, "tools=read_file,write_file", "--now", at(0)); err != nil {
		return err
	}
	if err := d.recordStory(intent, agentTicket, subTicket); err != nil {
		return err
	}

	if err := d.calls(subTicket); err != nil {
		return err
	}
	if err := d.receipts(); err != nil {
		return err
	}
	if err := d.approvals(); err != nil {
		return err
	}
	if err := d.hooks(); err != nil {
		return err
	}
	return d.report(subTicket)
}

// calls is part 4: the subagent's calls, each checked offline through the
// store before it runs.
func (d *demo) calls(subTicket string) error {
	p := d.path
	d.say("\n== 4. The subagent works; every call is checked offline before it runs")
	htu := "mcp://workspace/read_file"
	call := func(want int, sec int, proofKey, path string) error {
		proof, err := d.tt(0, "proof", "make", "--key", p(proofKey), "--htm", "POST", "--htu", htu,
			"--ticket", subTicket, "--iat", at(sec))
		if err != nil {
			return err
		}
		d.keep(proof, "PROOF")
		_, err = d.tt(want, "verify", "--key", p("root.key.pub"), "--now", at(sec),
			"--tool", "read_file", "--path", path, "--dpop", proof, "--htm", "POST", "--htu", htu,
			"--receipts", p("receipts.log"), "--receipt-key", p("receipts.key"), "--store", p("store.db"), subTicket)
		return err
	}
	if err := call(0, 60, "subagent.jwk", "src/discount/rules.go"); err != nil {
		return err
	}
	if err := call(0, 90, "subagent.jwk", "src/discount/rules_test.go"); err != nil {
		return err
	}
	d.say("\nA sibling directory is not under src/discount/ (segment boundary): refused, caveat named.")
	if err := call(1, 120, "subagent.jwk", "src/discount-legacy/rates.go"); err != nil {
		return err
	}
	d.say("\nThe agent's own key no longer speaks for this ticket: it was rebound to the subagent.")
	if err := call(1, 150, "agent.jwk", "src/discount/rules.go"); err != nil {
		return err
	}

	d.say("\nBudgets and used proofs live in a store (store.db here; SQLite): a restart, or a second")
	d.say("verifier on the same store, goes on from where this one is. Two of the 3 calls are spent:")
	if _, err := d.tt(0, "spent", "--key", p("root.key.pub"), "--store", p("store.db"), "--now", at(180), subTicket); err != nil {
		return err
	}

	return nil
}

// receipts is part 5: the receipt log, checkpointed and verified, then
// tampered with.
func (d *demo) receipts() error {
	p := d.path
	d.say("\n== 5. Receipts: one signed, chained record per decision")
	if _, err := d.tt(0, "receipt", "show", p("receipts.log")); err != nil {
		return err
	}
	cp, err := d.tt(0, "receipt", "checkpoint", "--key", p("receipts.key"), p("receipts.log"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(p("checkpoint.txt"), []byte(cp+"\n"), 0o644); err != nil {
		return err
	}
	d.say("   (saved as checkpoint.txt)")
	if _, err := d.tt(0, "receipt", "verify", "--key", p("receipts.key.pub"), "--checkpoint", p("checkpoint.txt"), p("receipts.log")); err != nil {
		return err
	}
	return d.tamper()
}

// recordStory writes the intent, minting and delegation receipts, as a
// harness does through the Go API (guard.Guard).
func (d *demo) recordStory(intent, agentText, subText string) error {
	d.say("\nThe harness records the intent, the minting and the delegation in the receipt log")
	d.say("(Go API: guard.Guard's RecordIntent, RecordMinted, RecordDelegated).")
	rk, err := key.ReadSigningFile(d.path("receipts.key"))
	if err != nil {
		return err
	}
	_, keys, err := keysOf(d.path("root.key.pub"))
	if err != nil {
		return err
	}
	log, err := chain.Open(d.path("receipts.log"), rk, receiptOrigin)
	if err != nil {
		return err
	}
	defer log.Close()
	g, err := guard.New(guard.Config{Keys: keys, Receipts: log})
	if err != nil {
		return err
	}
	agent, err := token.Parse(agentText)
	if err != nil {
		return err
	}
	sub, err := token.Parse(subText)
	if err != nil {
		return err
	}
	if err := g.RecordIntent(intent, demoT0); err != nil {
		return err
	}
	if err := g.RecordMinted(agent, demoT0); err != nil {
		return err
	}
	if err := g.RecordDelegated(sub, demoT0.Add(30*time.Second)); err != nil {
		return err
	}
	return log.Close()
}

// tamper shows a flipped byte and a cut log being caught.
func (d *demo) tamper() error {
	p := d.path
	data, err := os.ReadFile(p("receipts.log"))
	if err != nil {
		return err
	}
	d.say("\n== 6. Someone edits the log")
	i := bytes.Index(data, []byte("discount-legacy"))
	if i < 0 {
		return fmt.Errorf("the refused call is not in the log")
	}
	forged := bytes.Clone(data)
	forged[i+len("discount-")] = 'L' // one byte: legacy -> Legacy
	if err := os.WriteFile(p("edited.log"), forged, 0o600); err != nil {
		return err
	}
	d.say("edited.log is receipts.log with one byte changed at offset %d (discount-legacy -> discount-Legacy).", i+len("discount-"))
	if _, err := d.tt(1, "receipt", "verify", "--key", p("receipts.key.pub"), p("edited.log")); err != nil {
		return err
	}

	d.say("\ncut.log is receipts.log without its last record. The bare chain still verifies;")
	d.say("the checkpoint taken earlier shows the cut.")
	last := int64(-1)
	f := bytes.NewReader(data)
	for ent, err := range chain.Scan(f) {
		if err != nil {
			return err
		}
		last = ent.Offset
	}
	if last < 0 {
		return fmt.Errorf("empty log")
	}
	if err := os.WriteFile(p("cut.log"), data[:last], 0o600); err != nil {
		return err
	}
	if _, err := d.tt(0, "receipt", "verify", "--key", p("receipts.key.pub"), p("cut.log")); err != nil {
		return err
	}
	if _, err := d.tt(1, "receipt", "verify", "--key", p("receipts.key.pub"), "--checkpoint", p("checkpoint.txt"), p("cut.log")); err != nil {
		return err
	}
	return nil
}
