package main

import (
	"errors"
	"regexp"
	"testing"

	"github.com/failsim/failsim/monitor/livereplay"
	"github.com/failsim/failsim/timeline"
)

// said is err as failsim reports it: its exit code, its message and its hint.
func said(t *testing.T, err error) (int, string, string) {
	t.Helper()
	var ee *exitError
	if !errors.As(err, &ee) {
		t.Fatalf("%v is no exitError", err)
	}
	return ee.code, ee.err.Error(), ee.hint
}

// The typed errors of a live replay are said with the flags that gave the input and their
// hints, word for word what livereplay said itself before it named no flag: a bad --links URL,
// a bad --mysql DSN, and each input of a live replay with a workload that its preflight refuses.
func TestLiveInputMessages(t *testing.T) {
	for raw, want := range map[string]string{
		"ftp://x":                     `--links "ftp://x": scheme "ftp": want http://IP:PORT (the proxy's control API speaks plain http)`,
		"https://127.0.0.1:7480":      `--links "https://127.0.0.1:7480": scheme "https": want http://IP:PORT (the proxy's control API speaks plain http)`,
		"x":                           `--links "x": want http://IP:PORT`,
		"127.0.0.1:7480":              `--links "127.0.0.1:7480": want http://IP:PORT`,
		"http://x:7480":               `--links "http://x:7480": "x" is not a literal IP address: failsim resolves no host name for --links`,
		"http://localhost:7480":       `--links "http://localhost:7480": "localhost" is not a literal IP address: failsim resolves no host name for --links`,
		"http://127.0.0.1":            `--links "http://127.0.0.1": want http://IP:PORT: no port`,
		"http://127.0.0.1:0":          `--links "http://127.0.0.1:0": port "0": want a number from 1 to 65535`,
		"http://127.0.0.1:99999":      `--links "http://127.0.0.1:99999": port "99999": want a number from 1 to 65535`,
		"http://127.0.0.1:http":       `--links "http://127.0.0.1:http": want http://IP:PORT`,
		"http://u:p@127.0.0.1:7480":   `--links "http://u:p@127.0.0.1:7480": want http://IP:PORT and nothing else: no user, path, query or fragment`,
		"http://127.0.0.1:7480/v1":    `--links "http://127.0.0.1:7480/v1": want http://IP:PORT and nothing else: no user, path, query or fragment`,
		"http://127.0.0.1:7480?a=b":   `--links "http://127.0.0.1:7480?a=b": want http://IP:PORT and nothing else: no user, path, query or fragment`,
		"http://[fe80::1%25eth0]:748": `--links "http://[fe80::1%25eth0]:748": "fe80::1%eth0" is not a literal IP address: failsim resolves no host name for --links`,
	} {
		code, msg, hint := said(t, liveUsage(livereplay.CheckLinksURL(raw)))
		if code != 2 || msg != want || hint != linksURLHint {
			t.Errorf("CheckLinksURL(%q): exit %d, %q, hint %q; want exit 2, %q, hint %q", raw, code, msg, hint, want, linksURLHint)
		}
	}

	_, err := livereplay.ReplServers([]string{"db1", "db2"}, []string{"probe@tcp(127.0.0.1:1)/", "probe@unix(/tmp/my.sock)/"})
	if code, msg, hint := said(t, liveUsage(err)); code != 2 || !regexp.MustCompile(`^--mysql db2: `).MatchString(msg) || hint != "a DSN looks like probe:PASSWORD@tcp(127.0.0.1:3306)/" {
		t.Errorf("ReplServers: exit %d, %q, hint %q; want exit 2 on --mysql db2 with the DSN hint", code, msg, hint)
	}

	cause := errors.New("Error 1045 (28000): Access denied")
	for _, c := range []struct {
		err        livereplay.InputError
		want, hint string
	}{
		{livereplay.InputError{Field: livereplay.FieldServer, Check: livereplay.CheckProbe, Node: "db2", Addr: "127.0.0.1:1",
			Err: errors.New("a probe of 127.0.0.1:1 with no fault ended in socket_io_error: refused")},
			"--mysql db2: a probe of 127.0.0.1:1 with no fault ended in socket_io_error: refused",
			"the live replay needs every node's server running, the probe user able to log in and query"},
		{livereplay.InputError{Field: livereplay.FieldServer, Check: livereplay.CheckOpen, Node: "db1", Err: cause},
			"--mysql db1: " + cause.Error(), ""},
		{livereplay.InputError{Field: livereplay.FieldAdmin, Check: livereplay.CheckLogin, Node: "db1", User: "nobody", Addr: "127.0.0.1:3306", Err: cause},
			"--admin nobody on db1 (127.0.0.1:3306): " + cause.Error(), "its password comes from FAILSIM_ADMIN_PASSWORD"},
		{livereplay.InputError{Field: livereplay.FieldWriter, Check: livereplay.CheckLogin, Node: "db2", User: "w", Addr: "127.0.0.1:3307", Err: cause},
			"--writer w on db2 (127.0.0.1:3307): " + cause.Error(), "its password comes from FAILSIM_WRITER_PASSWORD"},
		{livereplay.InputError{Field: livereplay.FieldLedger, Check: livereplay.CheckRead, Node: "db1", Err: cause},
			"the ledger on db1, the master: " + cause.Error(),
			"create failsim.ledger (id BIGINT PRIMARY KEY) on the master, and grant the probe user SELECT and --writer INSERT on it"},
		{livereplay.InputError{Field: livereplay.FieldWriter, Check: livereplay.CheckLacks, Node: "db1", User: "g_writer", Addr: "127.0.0.1:3306",
			Err: errors.New("lacks INSERT ON failsim.ledger")},
			"--writer g_writer on db1 (127.0.0.1:3306) lacks INSERT ON failsim.ledger",
			`docs/live.md lists the grants each user needs ("The privileges each user needs")`},
		{livereplay.InputError{Field: livereplay.FieldProbe, Check: livereplay.CheckGrants, Node: "db2", User: "probe", Addr: "127.0.0.1:3307",
			Err: errors.New("SHOW GRANTS: " + cause.Error())},
			"the probe user of --mysql db2 probe on db2 (127.0.0.1:3307): SHOW GRANTS: " + cause.Error(), ""},
		{livereplay.InputError{Field: livereplay.FieldLinks, Check: livereplay.CheckControl, Addr: "http://127.0.0.1:1", Err: cause},
			"--links http://127.0.0.1:1: " + cause.Error(),
			"--links is the control API of the failsim proxy that carries the replicas' streams (failsim proxy --control ADDR)"},
		{livereplay.InputError{Field: livereplay.FieldLinks, Check: livereplay.CheckStream, Node: "db2", Addr: "http://127.0.0.1:7480",
			Err: errors.New("no node db2<-SOURCE carries db2's stream (its nodes: db3<-db1)")},
			"--links http://127.0.0.1:7480: no node db2<-SOURCE carries db2's stream (its nodes: db3<-db1)", ""},
	} {
		code, msg, hint := said(t, liveUsage(&c.err))
		if code != 2 || msg != c.want || hint != c.hint {
			t.Errorf("%s/%d: exit %d, %q, hint %q; want exit 2, %q, hint %q", c.err.Field, c.err.Check, code, msg, hint, c.want, c.hint)
		}
	}
	if code, _, _ := said(t, liveUsage(cause)); code != 1 {
		t.Errorf("a run's own error: exit %d, want 1", code)
	}

	tl, err := timeline.Parse("w.timeline", []byte("cluster db1:master db2:replica\nworkload writes=5/s\n00:00:01 db2 link freeze\n00:00:10 cluster end\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = livereplay.ReplicationActions(tl, false)
	if got, want := needsLinks(err).Error(), "w.timeline:3: a replication link or lag is made on the proxy that carries the replica's stream: give --links URL, the control API of the proxy with a node REPLICA<-SOURCE for each stream"; got != want {
		t.Errorf("ReplicationActions without links: %q, want %q", got, want)
	}
}
