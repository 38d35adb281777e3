package main

import (
	"os"
)

// approvals is part 7: the pricing lead's approval of one post. The agent
// drafts freely; posting needs the lead's signed approval
// of that exact post, which allows it once.
func (d *demo) approvals() error {
	p := d.path
	d.say("\n== 7. An approval: the pricing lead signs off one exact post")
	d.say("A person asks: draft the Q3 pricing summary, and the pricing lead approves it before it")
	d.say("is posted. The lead has a key pair of their own; the harness mints two tickets: one to")
	d.say("draft, one to post, which needs the lead's approval (the lead's public key is in it).")
	if _, err := d.tt(0, "keygen", "--alg", "ed25519", "--out", p("pricing-lead.key")); err != nil {
		return err
	}
	intent := "draft the Q3 pricing summary; the pricing lead approves it before it is posted"
	draft, err := d.tt(0, "mint", "--key", p("root.key"), "intent="+intent, "tools=draft_summary",
		"until="+at(3600), "--now", at(0))
	if err != nil {
		return err
	}
	d.keep(draft, "DRAFT_TICKET")
	post, err := d.tt(0, "mint", "--key", p("root.key"), "--approval", p("pricing-lead.key.pub"),
		"--approval-location", "https://chat.example.com/pricing-lead", "intent="+intent, "tools=post_summary",
		"until="+at(3600), "--now", at(0))
	if err != nil {
		return err
	}
	if err := os.WriteFile(p("post.ticket"), []byte(post+"\n"), 0o600); err != nil {
		return err
	}
	d.say("   (saved as post.ticket)")
	summary := `{"channel":"#pricing","text":"Q3: list prices rise 3% on 1 July; existing contracts keep their rates."}`
	if err := os.WriteFile(p("post.json"), []byte(summary+"\n"), 0o600); err != nil {
		return err
	}
	d.say("\nThe agent drafts: no approval needed.")
	if _, err := d.tt(0, "verify", "--key", p("root.key.pub"), "--now", at(120), "--store", p("store.db"), "--tool", "draft_summary", draft); err != nil {
		return err
	}
	d.say("\nIts draft, in post.json:\n%s", summary)

	d.say("\nIt tries to post it: refused, naming who must approve and the code; the hint is the")
	d.say("command the lead runs.")
	verifyPost := func(want, sec int, extra ...string) error {
		args := append([]string{"verify", "--key", p("root.key.pub"), "--now", at(sec), "--store", p("store.db"),
			"--tool", "post_summary", "--args", "@" + p("post.json")}, extra...)
		_, err := d.tt(want, append(args, "@"+p("post.ticket"))...)
		return err
	}
	if err := verifyPost(1, 200); err != nil {
		return err
	}

	d.say("\nThe lead runs it. approve shows, from the ticket's bytes, what is approved and the code")
	d.say("to compare, then signs a discharge for this post only (these arguments, to post_summary),")
	d.say("usable once, for 10 minutes.")
	d.say("(--yes because the demo has no one at a terminal to answer.)")
	dis, err := d.tt(0, "approve", "--key", p("pricing-lead.key"), "--once", "--args", "@"+p("post.json"),
		"tools=post_summary", "--yes", "--now", at(240), "@"+p("post.ticket"))
	if err != nil {
		return err
	}
	d.keep(dis, "DISCHARGE")

	d.say("\nThe post goes through with the discharge:")
	if err := verifyPost(0, 260, "--discharge", dis); err != nil {
		return err
	}
	d.say("\nA second post with the same discharge is refused: it allowed one call.")
	return verifyPost(1, 280, "--discharge", dis)
}
