package report

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/url"
	"os"
	"os/exec"
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
)

// Driving a headless Chromium through the DevTools protocol for the
// browser test: starting it offline, watching what a page attempts,
// evaluating in the page, screenshots.

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
			_, err := chromedp.Call(bctx, emulateOffline, offlineRule{Offline: true,
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

// offlineRule is Network.emulateNetworkConditionsByRule's parameters as
// both protocol revisions spell them: offline at the top level, where
// Chromium 148 requires it, and in the global rule, where earlier ones
// read it (each ignores the other).
type offlineRule struct {
	Offline                  bool                  `json:"offline"`
	MatchedNetworkConditions []*network.Conditions `json:"matchedNetworkConditions"`
}

var emulateOffline = cdp.Command[offlineRule, network.EmulateNetworkConditionsByRuleResult]{Method: network.CommandEmulateNetworkConditionsByRule}

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
