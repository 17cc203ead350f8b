package htmlreport

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
)

// Text is what the page shows under the chart, in failsim replay's words.
type Text struct {
	// Summary is the verdict and the expectations' results, as failsim replay's text output
	// ends (report.Printer.Summary).
	Summary string
	// Log is the event log in text, one line an event; "" for none. The page shows its first
	// maxLogLines lines, at most maxLogBytes of them (a LogWriter keeps no more).
	Log string
	// LogLines is how many lines the whole log had, when Log holds only its head (LogWriter);
	// 0: Log is the whole log.
	LogLines int
}

// The most of the event log the page shows: a day-long run's log stays readable and the page
// small, and a timeline of huge names gives no huge page.
const (
	maxLogLines = 5000
	maxLogBytes = 2 << 20
)

// LogWriter keeps the head of an event log for the page, as it is written: its first
// maxLogLines whole lines within maxLogBytes, and the count of all its lines; the rest it
// drops, so that a long run's report holds no more of its log in memory than the page shows.
// Its zero value is ready to use.
type LogWriter struct {
	head  strings.Builder
	lines int  // the lines written (a last line without its newline counts when Text is read)
	full  bool // the head holds all it will
	open  bool // the last byte written was no newline
	skip  bool // the line being written does not go into the head
}

// Write implements io.Writer; it never fails.
func (l *LogWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		line := p
		if i >= 0 {
			line = p[:i+1]
		}
		p = p[len(line):]
		if !l.open {
			l.skip = l.full || l.lines >= maxLogLines
		}
		if !l.skip && l.head.Len()+len(line) > maxLogBytes {
			l.skip, l.full = true, true
			l.trimOpen()
		}
		if !l.skip {
			l.head.Write(line)
		}
		l.open = line[len(line)-1] != '\n'
		if !l.open {
			l.lines++
		}
	}
	return n, nil
}

// trimOpen drops a partly kept line from the head.
func (l *LogWriter) trimOpen() {
	s := l.head.String()
	if k := strings.LastIndexByte(s, '\n'); k+1 < len(s) {
		kept := s[:k+1]
		l.head.Reset()
		l.head.WriteString(kept)
	}
}

// Text returns the page's text with summary and the head of the log.
func (l *LogWriter) Text(summary string) Text {
	lines := l.lines
	if l.open {
		lines++
	}
	return Text{Summary: summary, Log: l.head.String(), LogLines: lines}
}

// WriteSVG writes the chart alone: one standalone SVG document.
func (r *Recorder) WriteSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, `<?xml version="1.0" encoding="UTF-8"?>`)
	if err := newChart(r).write(bw, true); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteHTML writes the page: the chart, then the verdict, the expectations and the event log of
// t.
func (r *Recorder) WriteHTML(w io.Writer, t Text) error {
	bw := bufio.NewWriter(w)
	title := "failsim report: " + r.tl.File
	fmt.Fprintf(bw, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '%s'">
<title>%s</title>
<style>%s</style>
</head>
<body>
<h1>%s</h1>
<p class="hint">Hover any band or mark for its exact time and cause. Wheel: zoom around the pointer; drag: pan; double-click: the whole run.</p>
<div id="picture"><div id="wrap">
`, zoomHash, esc(title), pageCSS, esc(title))
	if err := newChart(r).write(bw, false); err != nil {
		return err
	}
	fmt.Fprintf(bw, "</div>\n<h2>Verdict</h2>\n<pre id=\"verdict\">%s</pre></div>\n", esc(strings.TrimSpace(t.Summary)))
	fmt.Fprintf(bw, "<p class=\"note\">%s</p>\n", esc(notModelled))
	if t.Log != "" || t.LogLines > 0 {
		shown, n := logHead(t.Log)
		total := max(n, t.LogLines)
		more := ""
		if total > n {
			more = fmt.Sprintf("\n... and %d more lines: failsim replay prints them all", total-n)
		}
		fmt.Fprintf(bw, "<details id=\"log\"><summary>Event log (%d lines)</summary>\n<pre>%s%s</pre></details>\n", total, esc(strings.TrimRight(shown, "\n")), more)
	}
	fmt.Fprintf(bw, "<script>%s</script>\n</body>\n</html>\n", zoomJS)
	return bw.Flush()
}

// logHead returns the lines of log the page shows (maxLogLines, maxLogBytes) and how many.
func logHead(log string) (string, int) {
	n, end := 0, 0
	for end < len(log) && n < maxLogLines {
		k := strings.IndexByte(log[end:], '\n')
		next := len(log)
		if k >= 0 {
			next = end + k + 1
		}
		if next > maxLogBytes {
			break
		}
		end, n = next, n+1
	}
	return log[:end], n
}

const pageCSS = `body{font-family:sans-serif;margin:16px;color:#222}h1{font-size:18px;margin:0 0 4px}h2{font-size:15px;margin:16px 0 4px}` +
	`.hint,.note{color:#666;font-size:12px;margin:2px 0 8px}#wrap{overflow-x:auto}#picture{background:#fff}#chart{display:block;width:100%;height:auto;user-select:none;cursor:crosshair}` +
	`pre{background:#f6f6f6;padding:8px;font-size:12px;overflow-x:auto}`

// zoomJS zooms and pans the plot: it changes the plot's viewBox (its unit is the second) and
// rewrites the axis and moves the labels that name a time (data-t): a label of a width
// (data-w) is laid out in its row (data-row) as labelRow lays it out, the others sit 3 pixels
// right of their time. The chart is as wide as the window: a pointer's pixels are divided by
// the chart's scale.
var zoomJS = fmt.Sprintf(`(function(){
var svg=document.getElementById("chart"),plot=document.getElementById("plot");
if(!svg||!plot)return;
var NS="http://www.w3.org/2000/svg",G=%d,span=+svg.dataset.span,base=+svg.dataset.base,px=+svg.dataset.plotx,pw=+svg.dataset.plotw;
var ph=+plot.getAttribute("height"),py=+plot.getAttribute("y"),a=0,b=span;
var steps=[1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,10800,21600,43200,86400,172800,604800,2592000,31536000,315360000,1576800000];
function pad(n){return n<10?"0"+n:""+n}
function label(s,step){var d=new Date(s*1000),hm=pad(d.getUTCHours())+":"+pad(d.getUTCMinutes()),md=pad(d.getUTCMonth()+1)+"-"+pad(d.getUTCDate());
if(step>=86400)return d.getUTCFullYear()+"-"+md;
if(step<60)return (span>86400?md+" ":"")+hm+":"+pad(d.getUTCSeconds());
return (span>86400?md+" ":"")+hm}
function xOf(t){return px+(t-a)/(b-a)*pw}
function draw(){
plot.setAttribute("viewBox",a+" 0 "+(b-a)+" "+ph);
var g=document.getElementById("ticks");while(g.firstChild)g.removeChild(g.firstChild);
var w=b-a,step=steps[steps.length-1];
for(var i=0;i<steps.length;i++){if(Math.floor(w/steps[i])<=Math.floor(pw/100)){step=steps[i];break}}
for(var s=Math.ceil((a+base)/step)*step;s-base<=b;s+=step){var x=xOf(s-base);
var l=document.createElementNS(NS,"line");l.setAttribute("x1",x);l.setAttribute("x2",x);l.setAttribute("y1",py);l.setAttribute("y2",py+ph);l.setAttribute("class","gl");g.appendChild(l);
var t=document.createElementNS(NS,"text");t.setAttribute("x",x);t.setAttribute("y",py-7);t.setAttribute("text-anchor","middle");t.setAttribute("class","tl");t.textContent=label(s,step);g.appendChild(t)}
var ls=svg.querySelectorAll("text[data-t]"),free={};
for(var j=0;j<ls.length;j++){var e=ls[j],tt=+e.dataset.t,x=xOf(tt),out=tt<a||tt>b;
if(e.dataset.w){var w=+e.dataset.w,r=e.dataset.row,l;
if(x+G+w<=px+pw){x+=G;l=x;e.setAttribute("text-anchor","start")}else{x-=G;l=x-w;e.setAttribute("text-anchor","end")}
out=out||l<(r in free?free[r]:-1e9);if(!out)free[r]=l+w+6}else x+=3;
e.setAttribute("x",x);e.setAttribute("display",out?"none":"inline")}}
function scale(){return svg.getBoundingClientRect().width/svg.viewBox.baseVal.width}
function at(e){return a+((e.clientX-svg.getBoundingClientRect().left)/scale()-px)/pw*(b-a)}
svg.addEventListener("wheel",function(e){var s=scale(),l=svg.getBoundingClientRect().left+px*s;if(e.clientX<l||e.clientX>l+pw*s)return;e.preventDefault();
var t=at(e),f=e.deltaY<0?0.8:1.25,na=t-(t-a)*f,nb=t+(b-t)*f;if(nb-na<1)return;a=Math.max(0,na);b=Math.min(span,nb);draw()},{passive:false});
var drag=null;svg.addEventListener("mousedown",function(e){drag={x:e.clientX,a:a,b:b}});
window.addEventListener("mouseup",function(){drag=null});
window.addEventListener("mousemove",function(e){if(!drag)return;var d=(e.clientX-drag.x)/scale()/pw*(drag.b-drag.a);
var na=drag.a-d,nb=drag.b-d;if(na<0){nb-=na;na=0}if(nb>span){na-=nb-span;nb=span}a=Math.max(0,na);b=nb;draw()});
svg.addEventListener("dblclick",function(){a=0;b=span;draw()});
})();`, labelGap)

// zoomHash is the Content-Security-Policy source of zoomJS: the page runs that script and no
// other, so that anything injected into the page does not run even if escaping failed.
var zoomHash = func() string {
	sum := sha256.Sum256([]byte(zoomJS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()
