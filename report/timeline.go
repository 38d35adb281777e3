package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/tickettool/tickettool/chain"
)

// chart is a family's decisions over time, drawn as an inline SVG: one
// row per kind (allowed, refused, captured, released), TimelineColumns
// columns of equal time, each bar as tall as its count against the row's
// busiest column.
type chart struct {
	Width, Height int
	Rects         []chartRect
	Rows          []chartRow
	From, To      time.Time
}

// chartRect is one bar of a timeline; Title says what it counts.
type chartRect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

// chartRow is the label of one row of a timeline.
type chartRow struct {
	Y     int
	Label string
	Count int64
}

const (
	rowHeight  = 22
	labelWidth = 90
	colWidth   = 6
)

var timelineKinds = [...]chain.Kind{chain.KindAllowed, chain.KindRefused, chain.KindCaptured, chain.KindReleased}

func timeline(evs []event, from, to time.Time) chart {
	t := chart{Width: labelWidth + TimelineColumns*colWidth, Height: len(timelineKinds) * rowHeight, From: from, To: to}
	if len(evs) == 0 {
		return t
	}
	span := max(to.UnixMilli()-from.UnixMilli(), 1)
	var counts [len(timelineKinds)][TimelineColumns]int64
	var totals [len(timelineKinds)]int64
	for _, e := range evs {
		col := min(int((e.ms-from.UnixMilli())*TimelineColumns/(span+1)), TimelineColumns-1)
		col = max(col, 0)
		for r, k := range timelineKinds {
			if e.kind == k {
				counts[r][col]++
				totals[r]++
			}
		}
	}
	step := time.Duration(span) * time.Millisecond / TimelineColumns
	for r, k := range timelineKinds {
		t.Rows = append(t.Rows, chartRow{Y: r*rowHeight + 15, Label: k.String(), Count: totals[r]})
		var peak int64
		for _, n := range counts[r] {
			peak = max(peak, n)
		}
		for c, n := range counts[r] {
			if n == 0 {
				continue
			}
			h := max(2, float64(rowHeight-4)*float64(n)/float64(peak))
			at := from.Add(time.Duration(c) * step)
			t.Rects = append(t.Rects, chartRect{X: float64(labelWidth + c*colWidth), Y: float64((r+1)*rowHeight-2) - h,
				W: colWidth - 1, H: h, Class: k.String(),
				Title: fmt.Sprintf("%s %s: %s", at.UTC().Format(time.RFC3339), k, strconv.FormatInt(n, 10))})
		}
	}
	return t
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
