package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"
)

var errTooLong = errors.New("mcp: message longer than the limit")

// sseEvents is what a stream said about resuming it: the id of its last
// event and how long to wait before reconnecting.
type sseEvents struct {
	lastID string
	retry  time.Duration
}

// readSSE reads a text/event-stream (the WHATWG HTML "server-sent events"
// format) and calls each with the data of every event that has some, as it
// arrives, until the stream ends, each returns false, or an event's data
// passes max bytes (errTooLong). It keeps the last event id and retry in
// ev (nil: not kept); comments and event names are ignored.
func readSSE(r io.Reader, max int, ev *sseEvents, each func([]byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	has := false
	if ev == nil {
		ev = &sseEvents{}
	}
	for {
		line, err := readLine(br, max)
		if err != nil {
			return err
		}
		if line == nil { // end of stream: an event not ended by a blank line is dropped
			return nil
		}
		if len(line) == 0 {
			if has && !each(data) {
				return nil
			}
			data, has = data[:0], false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "id":
			if !bytes.ContainsRune(value, 0) && len(value) <= maxIDBytes {
				ev.lastID = string(value)
			}
			continue
		case "retry":
			if ms, err := strconv.Atoi(string(value)); err == nil && ms >= 0 {
				ev.retry = min(time.Duration(ms)*time.Millisecond, maxResumeWait)
			}
			continue
		case "data":
		default:
			continue
		}
		if has {
			data = append(data, '\n')
		}
		if len(data)+len(value) > max {
			return errTooLong
		}
		data, has = append(data, value...), true
	}
}

// readLine returns one line without its end (LF or CRLF), nil at the end of
// the stream, errTooLong for a line past max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 {
			return nil, errTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if line == nil {
				line = []byte{}
			}
			return line, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return nil, nil
		default:
			return nil, err
		}
	}
}

// listen opens the session's GET stream (2025-11-25), on which the server
// sends requests and notifications of its own, and keeps it open while the
// session lasts: a stream that ends is opened again, up to
// maxListenRetries times in a row without a message. A server that offers
// none (405) has none.
func (h *httpSide) listen() {
	h.mu.Lock()
	if h.getting || h.session == "" {
		h.mu.Unlock()
		return
	}
	h.getting = true
	session, version := h.session, h.version
	h.mu.Unlock()
	go func() {
		defer func() {
			h.mu.Lock()
			h.getting = false
			h.mu.Unlock()
		}()
		for failures := 0; failures < maxListenRetries && h.ctx.Err() == nil; failures++ {
			h.mu.Lock()
			current := h.session
			h.mu.Unlock()
			if current != session {
				return // a new session has a stream of its own
			}
			got, stop := h.listenOnce(session, version)
			if stop {
				return
			}
			if got {
				failures = -1
			}
			select {
			case <-h.ctx.Done():
			case <-time.After(listenBackoff):
			}
		}
	}()
}

// listenOnce reads the GET stream once, and reports whether a message came
// and whether the server offers no stream.
func (h *httpSide) listenOnce(session, version string) (got, stop bool) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, h.up.URL, nil)
	if err != nil {
		return false, true
	}
	h.headers(req, version, session)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := h.client.Do(req)
	if err != nil {
		return false, false
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		return false, true
	}
	readSSE(resp.Body, h.p.cfg.MaxMessageBytes, nil, func(msg []byte) bool {
		got = true
		h.deliver(msg)
		return true
	})
	return got, false
}

// reinit starts a new session when the server no longer knows the old one
// (404): the agent's initialize is sent again, under an id of the guard's
// own, its answer kept from the agent (which has its own), then the
// agent's notifications/initialized. A session another request already
// replaced is not replaced again.
func (h *httpSide) reinit(old string) error {
	h.reinitMu.Lock()
	defer h.reinitMu.Unlock()
	h.mu.Lock()
	current, init, initDone := h.session, h.initMsg, h.initDone
	h.reinits++
	n := h.reinits
	h.mu.Unlock()
	switch {
	case current != old:
		return nil
	case init == nil:
		return errors.New("no initialize to repeat")
	case n > maxReinits:
		return fmt.Errorf("the session was replaced %d times already", maxReinits)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(init, &fields); err != nil {
		return err
	}
	id := marshal("tickettool-reinit-" + strconv.Itoa(n))
	fields["id"] = id
	ctx, cancel := context.WithTimeout(h.ctx, StoreTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.up.URL, bytes.NewReader(marshal(fields)))
	if err != nil {
		return err
	}
	h.headers(req, "", "")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		return fmt.Errorf("the server answered the new initialize with HTTP %d", resp.StatusCode)
	}
	k := keyOf1(id)
	ok := false
	each := func(msg []byte) bool {
		ok = answers(msg, k)
		return !ok
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" {
		readSSE(resp.Body, h.p.cfg.MaxMessageBytes, nil, each)
	} else if body, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.p.cfg.MaxMessageBytes))); err == nil {
		each(body)
	}
	if !ok {
		return errors.New("the server did not answer the new initialize")
	}
	h.mu.Lock()
	h.session = session
	h.mu.Unlock()
	h.p.log.Printf("the server ended the session; started a new one")
	if initDone != nil {
		o, err := readOutgoing(initDone)
		if err == nil {
			h.post(ctx, o, route{version: h.versionNow(), session: session}, false)
		}
	}
	return nil
}

func (h *httpSide) versionNow() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.version
}

// resume reconnects to a request's stream the server closed before its
// answer (2025-11-25, "Resumability and Redelivery": a GET with
// Last-Event-ID, after the retry the stream asked for), and reads on until
// the answer, at most maxResumes times in a row without an event. It
// reports whether the answer came.
func (h *httpSide) resume(ctx context.Context, o *outgoing, r route, ev *sseEvents, each func([]byte) bool) bool {
	answered := false
	wrapped := func(msg []byte) bool {
		if !each(msg) {
			answered = true
			return false
		}
		return true
	}
	for tries := 0; tries < maxResumes && !answered; tries++ {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(ev.retry):
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.up.URL, nil)
		if err != nil {
			return false
		}
		h.headers(req, r.version, r.session)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Last-Event-ID", ev.lastID)
		resp, err := h.client.Do(req)
		if err != nil {
			continue
		}
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			resp.Body.Close()
			return false // the server cannot resume it
		}
		before := ev.lastID
		err = readSSE(resp.Body, h.p.cfg.MaxMessageBytes, ev, wrapped)
		resp.Body.Close()
		if errors.Is(err, errTooLong) {
			h.tooLongAnswer(o)
			return true
		}
		if ev.lastID != before {
			tries = -1 // it moved on: start counting again
		}
	}
	return answered
}
