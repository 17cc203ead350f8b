package timeline

import (
	"slices"
	"strings"

	"github.com/failsim/failsim/fault"
)

// form is one shape of statement the parser accepts: how its errors write it, and a line that
// parses (in a timeline of db1:master db2:replica w1:witness with a workload). grammar_test.go
// parses every example and checks that every kind of event and expectation has a form, so a
// statement added to the parser without its form here fails there.
type form struct {
	usage, example string
}

// settingForms are the statements that come before the first event, by their first word; the
// parser reads a word listed here as a setting.
var settingForms = []form{
	{"checker interval=DURATION timeout=DURATION", "checker interval=3s timeout=5s"},
	{"statemap FILE", "statemap ../conf/examples/aggressive.properties"},
	{"policy automatic|manual|maintenance", "policy automatic"},
	{"start HH:MM:SS|RFC3339", "start 21:00:00"},
	{"family benign|fatal|mixed|partition", "family benign"},
	{"workload writes=N/s [deadline=DURATION] [near NODE]", "workload writes=200/s deadline=2s near db1"},
	{"replication async|semisync [timeout=DURATION] [lag-cap=DURATION] [apply-wait=DURATION]", "replication semisync timeout=10s lag-cap=900s apply-wait=30s"},
	{"liveness gap-threshold=TICKS failsafe-threshold=TICKS", "liveness gap-threshold=3 failsafe-threshold=3"},
	{"manager tungsten|orchestrator [config FILE] [near MEMBER]", "manager orchestrator config orchestrator.conf.json near w1"},
	{"promotion NODE=must|prefer|neutral|prefer_not|must_not...", "promotion db1=prefer db2=must_not"},
	{"datacenter NODE=NAME...", "datacenter db1=east db2=west"},
}

// eventForms are the timed statements; TIME is HH:MM:SS, an RFC 3339 time or +DURATION.
var eventForms = []form{
	{"TIME NODE FAULT [ARG]", "21:11:00 db1 stall"},
	{"TIME NODE manager down|up", "21:12:00 db2 manager down"},
	{"TIME NODE host down|up", "21:13:00 db2 host down"},
	{"TIME NODE recover", "21:14:00 db1 recover"},
	{"TIME NODE lag DURATION", "21:15:00 db2 lag 5s"},
	{"TIME NODE apply-lag DURATION", "21:15:00 db2 apply-lag 30s"},
	{"TIME NODE link freeze|heal", "21:16:00 db2 link freeze"},
	{"TIME NODE replicator stop|start", "21:17:00 db2 replicator stop"},
	{"TIME partition A B | C D", "21:18:00 partition db1 | db2 w1"},
	{"TIME partition managers A B | C D", "21:18:30 partition managers db1 | db2 w1"},
	{"TIME partition heal", "21:19:00 partition heal"},
	{"TIME cluster policy MODE", "21:20:00 cluster policy maintenance"},
	{"TIME cluster end", "22:00:00 cluster end"},
}

// expectForms are the expect statements.
var expectForms = []form{
	{"expect no failover", "expect no failover"},
	{"expect failover [of NODE] [to NODE] [after TIME] [by TIME]", "expect failover of db1 to db2 after 21:12:00 by 21:13:00"},
	{"expect no master [after TIME] [by TIME]", "expect no master after 21:12:00 by 21:20:00"},
	{"expect NODE failed [after TIME] [by TIME]", "expect db1 failed after 21:12:00 by 21:13:00"},
	{"expect NODE shunned [after TIME] [by TIME]", "expect db1 shunned by 21:30:00"},
	{"expect NODE never failed", "expect db2 never failed"},
	{"expect NODE STATE|ROLE at TIME", "expect db1 timeout at 21:15:00"},
	{"expect property NAME [ARG]", "expect property detects-death-within=60s"},
	{"expect split-brain at most DURATION", "expect split-brain at most 20s"},
	{"expect no split-brain", "expect no split-brain"},
	{"expect primary MEMBER... at TIME", "expect primary db2 w1 at 21:19:00"},
	{"expect no primary at TIME", "expect no primary at 21:18:00"},
	{"expect outage at most DURATION", "expect outage at most 90s"},
	{"expect unavailable at most DURATION", "expect unavailable at most 2m"},
	{"expect lost writes N", "expect lost writes 0"},
	{"expect lost writes at most N", "expect lost writes at most 10"},
}

// settingNames are the settings' first words, in the forms' order.
var settingNames = firstWords(settingForms)

func firstWords(forms []form) []string {
	words := make([]string, len(forms))
	for i, f := range forms {
		words[i], _, _ = strings.Cut(f.usage, " ")
	}
	return words
}

// isSetting reports whether word starts a setting statement.
func isSetting(word string) bool { return slices.Contains(settingNames, word) }

// settingWords lists the settings' first words: "checker, statemap, ...".
func settingWords() string { return strings.Join(settingNames, ", ") }

// usages writes forms as an error's "want" does: each quoted, joined with commas and a final
// "or".
func usages(forms []form) string {
	var b strings.Builder
	for i, f := range forms {
		switch {
		case i == 0:
		case i == len(forms)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(`"` + f.usage + `"`)
	}
	return b.String()
}

// nodeEventForms are the event forms of a node other than a fault, written for node name:
// "db1 manager down|up", ...
func nodeEventForms(name string) []form {
	var out []form
	for _, f := range eventForms {
		if rest, ok := strings.CutPrefix(f.usage, "TIME NODE "); ok && !strings.HasPrefix(rest, "FAULT") {
			out = append(out, form{usage: name + " " + rest})
		}
	}
	return out
}

// faultNames lists the faults a timeline names: "heal, refuse, ...".
func faultNames() string {
	names := make([]string, 0, len(fault.Kinds()))
	for _, k := range fault.Kinds() {
		names = append(names, k.String())
	}
	return strings.Join(names, ", ")
}

// nodeEventHint is what follows an unknown word after NODE: " (did you mean NAME?)" for the
// nearest fault or node event word by statemap's rule, else nothing.
func nodeEventHint(word string) string {
	words := strings.Split(faultNames(), ", ")
	for _, f := range nodeEventForms("NODE") {
		w, _, _ := strings.Cut(strings.TrimPrefix(f.usage, "NODE "), " ")
		words = append(words, w)
	}
	return didYouMean(word, words)
}

// statementHint is what follows an unknown statement: " (did you mean NAME?)" for the nearest
// statement word, else nothing.
func statementHint(word string) string {
	return didYouMean(word, append([]string{"cluster", "expect"}, settingNames...))
}

func didYouMean(word string, words []string) string {
	if n, ok := fault.NearestName(word, words); ok {
		return " (did you mean " + n + "?)"
	}
	return ""
}
