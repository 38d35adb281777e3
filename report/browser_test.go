package report

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tickettool/tickettool/chain"
)

var screenshotOut = flag.String("screenshot", "", "also save the browser test's screenshot of the story page to `FILE` (README.md shows it)")

// chromiumPath returns the Chromium (or Chrome) to drive: $TICKETTOOL_CHROMIUM,
// else the first of the usual names on PATH. Without one the test skips,
// and fails under CI=true, where .ci/run installs Debian's chromium.
func chromiumPath(t *testing.T) string {
	if p := os.Getenv("TICKETTOOL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium on PATH (chromium, chromium-browser, google-chrome) and TICKETTOOL_CHROMIUM unset: .ci/run installs Debian's chromium")
	}
	t.Skip("no Chromium on PATH: install Debian's chromium, or set TICKETTOOL_CHROMIUM")
	return ""
}

// browser starts a headless Chromium with networking off: flags that stop
// its own background traffic (the machine's network may be closed, and a
// browser waiting on refused connections hangs), a fresh profile, and
// every request of the page emulated offline.
func browser(t *testing.T) context.Context {
	exe := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1120, 1300))
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	steps := []func() error{
		func() error { _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); return err },
		func() error { _, err := chromedp.Call(bctx, runtime.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(bctx, cdplog.Enable, cdp.Empty{}); return err },
		func() error {
			_, err := chromedp.Call(bctx, network.OverrideNetworkState,
				network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1})
			return err
		},
		func() error {
			_, err := chromedp.Call(bctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
				MatchedNetworkConditions: []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}}})
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("starting %s with networking off: %v", exe, err)
		}
	}
	return bctx
}

// watched is what the DevTools protocol reported while a page was open:
// every request the page attempted (sent, failed or blocked), exceptions,
// console calls and browser log entries.
type watched struct {
	mu       sync.Mutex
	requests []string
	failed   []string
	errors   []string
}

func (w *watched) add(ev any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		w.requests = append(w.requests, ev.Request.URL)
	case *network.EventLoadingFailed:
		w.failed = append(w.failed, fmt.Sprintf("%s %s %s", ev.Type, ev.ErrorText, ev.BlockedReason))
	case *runtime.EventExceptionThrown:
		w.errors = append(w.errors, "exception: "+ev.ExceptionDetails.Text)
	case *runtime.EventConsoleAPICalled:
		w.errors = append(w.errors, "console: "+string(ev.Type))
	case *cdplog.EventEntryAdded:
		w.errors = append(w.errors, fmt.Sprintf("log %s %s: %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text))
	}
}

// open loads the file at path and returns what the page attempted.
func open(t *testing.T, ctx context.Context, path string) *watched {
	t.Helper()
	w := new(watched)
	if err := chromedp.Listen(ctx, w.add); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fileURL(path))); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	// Let late requests (images, fonts, style sheets) show up.
	time.Sleep(300 * time.Millisecond)
	return w
}

func fileURL(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// onlyThePage fails unless the one request attempted was the page's own
// file, and nothing was blocked, thrown or logged.
func onlyThePage(t *testing.T, w *watched, path string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.requests) != 1 || w.requests[0] != fileURL(path) {
		t.Errorf("requests attempted: %q, want only the page %s", w.requests, fileURL(path))
	}
	if len(w.failed) > 0 || len(w.errors) > 0 {
		t.Errorf("failed loads %q, errors %q", w.failed, w.errors)
	}
}

// TestBrowser opens pages in a real headless Chromium, from files, with
// networking off, and checks the DOM: the verdict, the counts, the tree
// and the bars of a verified log; a broken log's break; and that hostile
// records ran nothing and fetched nothing (DevTools network events, not
// only the CSP). A control page that does fetch and run a script shows
// that the watch sees both. It saves the screenshot README.md shows.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	sk := testKey(t)
	dir := t.TempDir()
	write := func(name string, rs []chain.Record, o func(*Options)) string {
		p := writeLog(t, sk, dir, name+".log", rs)
		op := opts(sk)
		if o != nil {
			o(&op)
		}
		_, page := render(t, p, op)
		out := filepath.Join(dir, name+".html")
		if err := os.WriteFile(out, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}

	t.Run("control", func(t *testing.T) {
		p := filepath.Join(dir, "control.html")
		os.WriteFile(p, []byte(`<!DOCTYPE html><title>control</title><img src="http://127.0.0.1:9/x.png"><script>document.title="ran"</script>`), 0o644)
		w := open(t, ctx, p)
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.requests) < 2 || !strings.Contains(strings.Join(w.requests, " "), "127.0.0.1:9") {
			t.Errorf("the watch missed the control page's request: %q", w.requests)
		}
		if title := eval[string](t, ctx, "document.title"); title != "ran" {
			t.Errorf("control page's script did not run: title %q", title)
		}
	})

	t.Run("story", func(t *testing.T) {
		p := write("story", story(), nil)
		w := open(t, ctx, p)
		onlyThePage(t, w, p)
		if v := eval[string](t, ctx, `document.getElementById("verdict").dataset.ok + " " + document.querySelector("#verdict b").textContent`); v != "true Verified" {
			t.Errorf("verdict %q", v)
		}
		if n := eval[string](t, ctx, `document.getElementById("verified-records").textContent`); n != itoa(int64(len(story()))) {
			t.Errorf("records verified %q", n)
		}
		counts := eval[string](t, ctx, `["count-total","count-allowed","count-refused"].map(i => document.getElementById(i).textContent).join(" ")`)
		if counts != fmt.Sprintf("%d 8 3", len(story())) {
			t.Errorf("counts %q", counts)
		}
		// The tree: block 0 holds block 1 holds block 2.
		tree := eval[string](t, ctx, `Array.from(document.querySelectorAll("ul.tree .node")).map(n => n.dataset.block + ":" + n.closest("li").parentElement.closest("li")?.querySelector(".node").dataset.block).join(" ")`)
		if tree != "0:undefined 1:0 2:1" {
			t.Errorf("tree %q", tree)
		}
		// Bars: one per calls budget, captured and reserved drawn to scale
		// (block 1: 3 and 3 of 10, on 300 pixels).
		bars := eval[string](t, ctx, `Array.from(document.querySelectorAll("svg.bar")).map(s => s.querySelector("rect.cap").getAttribute("width") + "/" + s.querySelector("rect.res").getAttribute("width")).join(" ")`)
		if bars != "24.0/18.0 90.0/90.0 0.0/75.0" {
			t.Errorf("bars %q", bars)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("svg.tl rect").length`); n == 0 {
			t.Error("no timeline")
		}
		shot := screenshot(t, ctx)
		if *screenshotOut != "" {
			if err := os.WriteFile(*screenshotOut, shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("broken", func(t *testing.T) {
		p := writeLog(t, sk, dir, "broken.log", story())
		data := readFile(t, p)
		data[len(data)/2] ^= 1
		os.WriteFile(p, data, 0o644)
		_, page := render(t, p, opts(sk))
		out := filepath.Join(dir, "broken.html")
		os.WriteFile(out, []byte(page), 0o644)
		w := open(t, ctx, out)
		onlyThePage(t, w, out)
		v := eval[string](t, ctx, `document.getElementById("verdict").dataset.ok + " " + document.querySelector("#verdict b").textContent`)
		if v != "false NOT VERIFIED" {
			t.Errorf("verdict %q", v)
		}
		brk := eval[string](t, ctx, `document.getElementById("break-row").textContent`)
		last := eval[string](t, ctx, `document.querySelector("#records tr:last-child").id`)
		if !strings.Contains(brk, "BREAK") || last != "break-row" {
			t.Errorf("break row %q, last row %q", brk, last)
		}
		if s := eval[string](t, ctx, `getComputedStyle(document.getElementById("verdict")).borderTopColor`); s != "rgb(207, 34, 46)" {
			t.Errorf("verdict border %q, want the alarm red", s)
		}
	})

	t.Run("hostile", func(t *testing.T) {
		p := write("hostile", append(story(), hostile()...), nil)
		w := open(t, ctx, p)
		onlyThePage(t, w, p)
		if title := eval[string](t, ctx, "document.title"); title != "Receipts: hostile.log" {
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
			if got := eval[int](t, ctx, js); got != want {
				t.Errorf("%s = %d, want %d", js, got, want)
			}
		}
		// Nothing is wider than the page: long names wrap.
		if over := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
			t.Errorf("the page is %d pixels wider than the window", over)
		}
		if shown := eval[bool](t, ctx, `getComputedStyle(document.body).display != "none"`); !shown {
			t.Error("a record's style hid the page")
		}
	})
}

// screenshot returns a PNG of the window in its 256 most frequent colours
// (no dithering: text stays sharp and the file small).
func screenshot(t *testing.T, ctx context.Context) []byte {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	pal := image.NewPaletted(img.Bounds(), frequentColors(img, 256))
	draw.Draw(pal, pal.Rect, img, img.Bounds().Min, draw.Src)
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, pal); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// frequentColors returns the n colours img uses most.
func frequentColors(img image.Image, n int) color.Palette {
	count := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	cs := make([]color.RGBA, 0, len(count))
	for c := range count {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b color.RGBA) int {
		return cmp.Or(count[b]-count[a], int(a.R)-int(b.R), int(a.G)-int(b.G), int(a.B)-int(b.B))
	})
	var p color.Palette
	for _, c := range cs[:min(n, len(cs))] {
		p = append(p, c)
	}
	return p
}

// TestBrowserRequiredInCI: without a Chromium the browser test skips,
// except under CI=true, where it fails (run as a child test process with
// an empty PATH).
func TestBrowserRequiredInCI(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBrowser$", "-test.v")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "CI=") || strings.HasPrefix(kv, "TICKETTOOL_CHROMIUM=")
		}), "PATH="+t.TempDir(), "CI="+ci)
		out, err := cmd.CombinedOutput()
		switch {
		case ci == "" && (err != nil || !strings.Contains(string(out), "--- SKIP: TestBrowser")):
			t.Errorf("no Chromium, CI unset: want a skip, got %v\n%s", err, out)
		case ci == "true" && (err == nil || !strings.Contains(string(out), "--- FAIL: TestBrowser") || !strings.Contains(string(out), "no Chromium")):
			t.Errorf("no Chromium, CI=true: want a failure, got %v\n%s", err, out)
		}
	}
}
