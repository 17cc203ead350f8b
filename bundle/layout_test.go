package bundle_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/failsim/failsim/bundle"
)

func TestClassify(t *testing.T) {
	for name, want := range map[string]bundle.Kind{
		"db1/tmsvc.log": bundle.ManagerLog, "db1/tmsvc.log.1": bundle.ManagerLog, "db1/trepsvc.log": bundle.Replicator,
		"db1/connector.log": bundle.Connector, "db1/cctrl_ls.txt": bundle.Cctrl, "cctrl-ls-l.out": bundle.Cctrl,
		"db1/tpm_reverse.txt": bundle.Other, "tmsvc.logs/readme": bundle.Other,
	} {
		if got := bundle.Classify(name); got != want {
			t.Errorf("Classify(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestRead(t *testing.T) {
	fsys := fstest.MapFS{
		"db1/tmsvc.log":     {Data: []byte("log")},
		"db1/cctrl_ls.txt":  {Data: []byte("ls")},
		"db1/trepsvc.log":   {Data: []byte("never read")},
		"db1/os/meminfo":    {Data: []byte("skipped")},
		"db2/cctrl_ls.txt":  {Data: []byte("ls2")},
		"db2/connector.log": {Data: []byte("never read")},
	}
	files, err := bundle.Read(fsys, "diag", bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Name+"="+string(f.Data))
	}
	want := "diag/db1/cctrl_ls.txt=ls diag/db1/tmsvc.log=log diag/db1/trepsvc.log= diag/db2/cctrl_ls.txt=ls2 diag/db2/connector.log="
	if strings.Join(got, " ") != want {
		t.Errorf("files %q, want %q", strings.Join(got, " "), want)
	}
	if _, err := bundle.Read(fsys, "diag", bundle.Limits{File: 2}); err == nil || err.Error() != "diag/db1/tmsvc.log: larger than 2 bytes" {
		t.Errorf("per-file bound: %v", err)
	}
	if _, err := bundle.Read(fsys, "diag", bundle.Limits{Total: 6}); err == nil || err.Error() != "diag/db2/cctrl_ls.txt: the bundle's files are more than 6 bytes in all" {
		t.Errorf("total bound: %v", err)
	}
	if _, err := bundle.Read(fstest.MapFS{"pg/postgresql.log": {Data: []byte("x")}}, "pg", bundle.Limits{}); err == nil || !strings.Contains(err.Error(), "not a Tungsten support bundle") {
		t.Errorf("another product's bundle: %v", err)
	}
}
