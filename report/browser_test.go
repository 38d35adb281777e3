package report

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/key"
)

var screenshotOut = flag.String("screenshot", "", "also save the browser test's screenshot of the story page to `FILE` (README.md shows it)")

// TestBrowser opens pages in a real headless Chromium, from files, with
// networking off, and checks the DOM: the verdict, the counts, the tree
// and the bars of a verified log; a broken log's break; and that hostile
// records ran nothing and fetched nothing (DevTools network events, not
// only the CSP). A control page that does fetch and run a script shows
// that the watch sees both. It saves the screenshot README.md shows.
func TestBrowser(t *testing.T) {
	pg := &pages{ctx: browser(t), sk: testKey(t), dir: t.TempDir()}
	t.Run("control", pg.control)
	t.Run("story", pg.story)
	t.Run("broken", pg.broken)
	t.Run("hostile", pg.hostile)
}

// pages are the browser test's pages: one browser, one receipt key, one
// directory.
type pages struct {
	ctx context.Context
	sk  *key.Signing
	dir string
}

// write writes rs as a log and its page, and returns the page's path.
func (pg *pages) write(t *testing.T, name string, rs []chain.Record, o func(*Options)) string {
	p := writeLog(t, pg.sk, pg.dir, name+".log", rs)
	op := opts(pg.sk)
	if o != nil {
		o(&op)
	}
	_, page := render(t, p, op)
	out := filepath.Join(pg.dir, name+".html")
	if err := os.WriteFile(out, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// control: a page that fetches and runs a script, which the watch must see.
func (pg *pages) control(t *testing.T) {
	p := filepath.Join(pg.dir, "control.html")
	os.WriteFile(p, []byte(`<!DOCTYPE html><title>control</title><img src="http://127.0.0.1:9/x.png"><script>document.title="ran"</script>`), 0o644)
	w := open(t, pg.ctx, p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.requests) < 2 || !strings.Contains(strings.Join(w.requests, " "), "127.0.0.1:9") {
		t.Errorf("the watch missed the control page's request: %q", w.requests)
	}
	if title := eval[string](t, pg.ctx, "document.title"); title != "ran" {
		t.Errorf("control page's script did not run: title %q", title)
	}
}

// story: a verified log's verdict, counts, tree, bars and timeline; the
// screenshot.
func (pg *pages) story(t *testing.T) {
	p := pg.write(t, "story", story(), nil)
	w := open(t, pg.ctx, p)
	onlyThePage(t, w, p)
	if v := eval[string](t, pg.ctx, `document.getElementById("verdict").dataset.ok + " " + document.querySelector("#verdict b").textContent`); v != "true Verified" {
		t.Errorf("verdict %q", v)
	}
	if n := eval[string](t, pg.ctx, `document.getElementById("verified-records").textContent`); n != itoa(int64(len(story()))) {
		t.Errorf("records verified %q", n)
	}
	counts := eval[string](t, pg.ctx, `["count-total","count-allowed","count-refused"].map(i => document.getElementById(i).textContent).join(" ")`)
	if counts != fmt.Sprintf("%d 8 3", len(story())) {
		t.Errorf("counts %q", counts)
	}
	// The tree: block 0 holds block 1 holds block 2.
	tree := eval[string](t, pg.ctx, `Array.from(document.querySelectorAll("ul.tree .node")).map(n => n.dataset.block + ":" + n.closest("li").parentElement.closest("li")?.querySelector(".node").dataset.block).join(" ")`)
	if tree != "0:undefined 1:0 2:1" {
		t.Errorf("tree %q", tree)
	}
	// Bars: one per calls budget, captured and reserved drawn to scale
	// (block 1: 3 and 3 of 10, on 300 pixels).
	bars := eval[string](t, pg.ctx, `Array.from(document.querySelectorAll("svg.bar")).map(s => s.querySelector("rect.cap").getAttribute("width") + "/" + s.querySelector("rect.res").getAttribute("width")).join(" ")`)
	if bars != "24.0/18.0 90.0/90.0 0.0/75.0" {
		t.Errorf("bars %q", bars)
	}
	if n := eval[int](t, pg.ctx, `document.querySelectorAll("svg.tl rect").length`); n == 0 {
		t.Error("no timeline")
	}
	shot := screenshot(t, pg.ctx)
	if *screenshotOut != "" {
		if err := os.WriteFile(*screenshotOut, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// broken: a changed byte shows the break, last, in the alarm colour.
func (pg *pages) broken(t *testing.T) {
	p := writeLog(t, pg.sk, pg.dir, "broken.log", story())
	data := readFile(t, p)
	data[len(data)/2] ^= 1
	os.WriteFile(p, data, 0o644)
	_, page := render(t, p, opts(pg.sk))
	out := filepath.Join(pg.dir, "broken.html")
	os.WriteFile(out, []byte(page), 0o644)
	w := open(t, pg.ctx, out)
	onlyThePage(t, w, out)
	v := eval[string](t, pg.ctx, `document.getElementById("verdict").dataset.ok + " " + document.querySelector("#verdict b").textContent`)
	if v != "false NOT VERIFIED" {
		t.Errorf("verdict %q", v)
	}
	brk := eval[string](t, pg.ctx, `document.getElementById("break-row").textContent`)
	last := eval[string](t, pg.ctx, `document.querySelector("#records tr:last-child").id`)
	if !strings.Contains(brk, "BREAK") || last != "break-row" {
		t.Errorf("break row %q, last row %q", brk, last)
	}
	if s := eval[string](t, pg.ctx, `getComputedStyle(document.getElementById("verdict")).borderTopColor`); s != "rgb(207, 34, 46)" {
		t.Errorf("verdict border %q, want the alarm red", s)
	}
}

// hostile: records that try to run, fetch or hide run, fetch and hide
// nothing, and break no layout.
func (pg *pages) hostile(t *testing.T) {
	p := pg.write(t, "hostile", append(story(), hostile()...), nil)
	w := open(t, pg.ctx, p)
	onlyThePage(t, w, p)
	if title := eval[string](t, pg.ctx, "document.title"); title != "Receipts: hostile.log" {
		t.Errorf("title %q: a record's script ran", title)
	}
	for js, want := range map[string]int{
		`document.scripts.length`: 0,
		`document.images.length`:  0,
		`document.querySelectorAll("link,iframe,object,embed,a,form,base").length`: 0,
		`document.querySelectorAll("style").length`:                                1,
		`document.querySelectorAll("#injected").length`:                            0,
		`document.querySelectorAll("svg[onload]").length`:                          0,
		`document.querySelectorAll("section.family").length`:                       2,
	} {
		if got := eval[int](t, pg.ctx, js); got != want {
			t.Errorf("%s = %d, want %d", js, got, want)
		}
	}
	// Nothing is wider than the page: long names wrap.
	if over := eval[int](t, pg.ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
		t.Errorf("the page is %d pixels wider than the window", over)
	}
	if shown := eval[bool](t, pg.ctx, `getComputedStyle(document.body).display != "none"`); !shown {
		t.Error("a record's style hid the page")
	}
}
