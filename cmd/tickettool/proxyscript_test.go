package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The testscript commands of the proxy's scripts:
//
//	upstream VAR FILE    serve a recording upstream on a loopback port until
//	                     the script ends: $VAR is its URL; every request it
//	                     gets is appended, whole, to FILE; it answers 200
//	                     "upstream saw METHOD PATH"
//	freeport VAR         $VAR is HOST:PORT of a free loopback port
//	httpreq [-bearer] METHOD URL TICKETFILE [PROOFFILE [BODY]]
//	                     send a request with the ticket (DPoP, or Bearer) and
//	                     proof, retrying while the server is not up yet (10 s);
//	                     print "status N", each WWW-Authenticate and DPoP-Nonce
//	                     header and the body; set $NONCE to the DPoP-Nonce
//	                     header when there is one
var proxyCmds = map[string]func(*testscript.TestScript, bool, []string){
	"upstream": cmdUpstream,
	"freeport": cmdFreeport,
	"httpreq":  cmdHTTPReq,
}

func cmdUpstream(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "upstream")
	if len(args) != 2 {
		ts.Fatalf("usage: upstream VAR FILE")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	path := ts.MkAbs(args[1])
	var mu sync.Mutex
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		r.Write(&b)
		mu.Lock()
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err == nil {
			f.Write(append(b.Bytes(), "\n---\n"...))
			f.Close()
		}
		mu.Unlock()
		fmt.Fprintf(w, "upstream saw %s %s\n", r.Method, r.URL.Path)
	})}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
	ts.Setenv(args[0], "http://"+l.Addr().String())
}

func cmdFreeport(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "freeport")
	if len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Setenv(args[0], l.Addr().String())
	l.Close()
}

func cmdHTTPReq(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "httpreq")
	scheme := "DPoP"
	if len(args) > 0 && args[0] == "-bearer" {
		scheme, args = "Bearer", args[1:]
	}
	if len(args) < 3 || len(args) > 5 {
		ts.Fatalf("usage: httpreq [-bearer] METHOD URL TICKETFILE [PROOFFILE [BODY]]")
	}
	body := ""
	if len(args) == 5 {
		body = args[4]
	}
	var res *http.Response
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		r, err := http.NewRequest(args[0], args[1], strings.NewReader(body))
		ts.Check(err)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		r.Header.Set("Authorization", scheme+" "+strings.TrimSpace(ts.ReadFile(args[2])))
		if len(args) >= 4 {
			r.Header.Set("DPoP", strings.TrimSpace(ts.ReadFile(args[3])))
		}
		res, err = http.DefaultClient.Do(r)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || time.Since(start) > 10*time.Second {
			ts.Fatalf("httpreq: %v", err)
		}
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	fmt.Fprintf(ts.Stdout(), "status %d\n", res.StatusCode)
	for _, c := range res.Header.Values("WWW-Authenticate") {
		fmt.Fprintf(ts.Stdout(), "www-authenticate: %s\n", c)
	}
	if n := res.Header.Get("DPoP-Nonce"); n != "" {
		fmt.Fprintf(ts.Stdout(), "dpop-nonce: %s\n", n)
		ts.Setenv("NONCE", n)
	}
	fmt.Fprintf(ts.Stdout(), "%s\n", b)
}
