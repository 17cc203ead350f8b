package htmlreport

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
)

// Text is what the page shows under the chart, in failsim replay's words.
type Text struct {
	// Summary is the verdict and the expectations' results, as failsim replay's text output
	// ends (report.Printer.Summary).
	Summary string
	// Log is the event log in text, one line an event; "" for none.
	Log string
}

// maxLogLines is the most lines of the event log the page shows: a day-long run's log stays
// readable and the page small.
const maxLogLines = 5000

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
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>%s</title>
<style>%s</style>
</head>
<body>
<h1>%s</h1>
<p class="hint">Hover any band or mark for its exact time and cause. Wheel: zoom around the pointer; drag: pan; double-click: the whole run.</p>
<div id="picture"><div id="wrap">
`, html.EscapeString(title), pageCSS, html.EscapeString(title))
	if err := newChart(r).write(bw, false); err != nil {
		return err
	}
	fmt.Fprintf(bw, "</div>\n<h2>Verdict</h2>\n<pre id=\"verdict\">%s</pre></div>\n", html.EscapeString(strings.TrimSpace(t.Summary)))
	fmt.Fprintf(bw, "<p class=\"note\">%s</p>\n", html.EscapeString(notModelled))
	if t.Log != "" {
		lines := strings.SplitAfter(strings.TrimRight(t.Log, "\n"), "\n")
		shown := lines
		more := ""
		if len(lines) > maxLogLines {
			shown = lines[:maxLogLines]
			more = fmt.Sprintf("\n... and %d more lines: failsim replay prints them all", len(lines)-maxLogLines)
		}
		fmt.Fprintf(bw, "<details id=\"log\"><summary>Event log (%d lines)</summary>\n<pre>%s%s</pre></details>\n", len(lines), html.EscapeString(strings.Join(shown, "")), more)
	}
	fmt.Fprintf(bw, "<script>%s</script>\n</body>\n</html>\n", zoomJS)
	return bw.Flush()
}

const pageCSS = `body{font-family:sans-serif;margin:16px;color:#222}h1{font-size:18px;margin:0 0 4px}h2{font-size:15px;margin:16px 0 4px}` +
	`.hint,.note{color:#666;font-size:12px;margin:2px 0 8px}#wrap{overflow-x:auto}#picture{width:1500px;background:#fff}#chart{user-select:none;cursor:crosshair}` +
	`pre{background:#f6f6f6;padding:8px;font-size:12px;overflow-x:auto}`

// zoomJS zooms and pans the plot: it changes the plot's viewBox (its unit is the second) and
// rewrites the axis and moves the labels that name a time (data-t), each 3 pixels right of it
// or data-dx pixels.
const zoomJS = `(function(){
var svg=document.getElementById("chart"),plot=document.getElementById("plot");
if(!svg||!plot)return;
var NS="http://www.w3.org/2000/svg",span=+svg.dataset.span,base=+svg.dataset.base,px=+svg.dataset.plotx,pw=+svg.dataset.plotw;
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
var ls=svg.querySelectorAll("text[data-t]"),free=-1e9;
for(var j=0;j<ls.length;j++){var e=ls[j],tt=+e.dataset.t,x=xOf(tt)+(e.dataset.dx?+e.dataset.dx:3),out=tt<a||tt>b;e.setAttribute("x",x);
if(e.getAttribute("class")=="dl"){out=out||x<free;if(!out)free=x+e.firstChild.nodeValue.length*6.5+6}
e.setAttribute("display",out?"none":"inline")}}
function at(e){return a+(e.clientX-svg.getBoundingClientRect().left-px)/pw*(b-a)}
svg.addEventListener("wheel",function(e){var l=svg.getBoundingClientRect().left+px;if(e.clientX<l||e.clientX>l+pw)return;e.preventDefault();
var t=at(e),f=e.deltaY<0?0.8:1.25,na=t-(t-a)*f,nb=t+(b-t)*f;if(nb-na<1)return;a=Math.max(0,na);b=Math.min(span,nb);draw()},{passive:false});
var drag=null;svg.addEventListener("mousedown",function(e){drag={x:e.clientX,a:a,b:b}});
window.addEventListener("mouseup",function(){drag=null});
window.addEventListener("mousemove",function(e){if(!drag)return;var d=(e.clientX-drag.x)/pw*(drag.b-drag.a);
var na=drag.a-d,nb=drag.b-d;if(na<0){nb-=na;na=0}if(nb>span){na-=nb-span;nb=span}a=Math.max(0,na);b=nb;draw()});
svg.addEventListener("dblclick",function(){a=0;b=span;draw()});
})();`
