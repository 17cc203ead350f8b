package proxy

import (
	"errors"
	"reflect"
	"testing"

	"github.com/failsim/failsim/fileline"
)

func TestParseToxiproxyConfig(t *testing.T) {
	data := `[
  {"name": "db1", "listen": "127.0.0.1:4001", "upstream": "127.0.0.1:3306"},
  {"name": "db2", "listen": "", "upstream": "db.example:3307", "enabled": false, "toxics": []},
  {"name": "db3", "listen": "[::1]:4003", "upstream": "127.0.0.1:3308", "enabled": true}
]
`
	got, err := ParseToxiproxyConfig("t.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := ToxiproxyConfig{
		Nodes: []NodeConfig{
			{Name: "db1", Listen: "127.0.0.1:4001", Upstream: "127.0.0.1:3306"},
			{Name: "db2", Listen: "127.0.0.1:0", Upstream: "db.example:3307", Disabled: true},
			{Name: "db3", Listen: "[::1]:4003", Upstream: "127.0.0.1:3308"},
		},
		NodeLines: []int{2, 3, 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if got, err := ParseToxiproxyConfig("e.json", []byte("[]")); err != nil || len(got.Nodes) != 0 {
		t.Fatalf("an empty array: %+v %v", got, err)
	}
}

func TestParseToxiproxyConfigErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{``, "c.json:1: not valid JSON: the document ends too early"},
		{`{"name": "db1"}`, "c.json:1: want a JSON array of proxies, as toxiproxy's -config takes"},
		{"[\n{\"name\": \"db1\", \"upstream\": \"127.0.0.1:1\"},\n{\"listen\": \"127.0.0.1:0\"}\n]", "c.json:3: proxy 2: missing required field: name"},
		{"[{\"name\": \"db1\"}]", "c.json:1: proxy 1: missing required field: upstream"},
		{"[\n{\"name\": \"db1\", \"upstream\": \"127.0.0.1:1\"},\n{\"name\": \"db1\", \"upstream\": \"127.0.0.1:2\"}]", "c.json:3: proxy 2: db1 given twice (first at line 2)"},
		{"[{\"name\": \"a b\", \"upstream\": \"127.0.0.1:1\"}]", `c.json:1: proxy 1: node name "a b": want UTF-8 text with no whitespace, control character or '/'`},
		{"[{\"name\": \"db1\", \"listen\": \"127.0.0.1:http\", \"upstream\": \"127.0.0.1:1\"}]", `c.json:1: proxy 1: db1: listen address "127.0.0.1:http": port "http" is not a number from 0 to 65535`},
		{"[{\"name\": \"db1\", \"upstream\": \"127.0.0.1\"}]", `c.json:1: proxy 1: db1: upstream address "127.0.0.1": address 127.0.0.1: missing port in address`},
		{"[\n{\"name\": \"db1\",\n \"upstream\": 3306}]", "c.json:3: upstream: a JSON number where string belongs"},
		{"[\n{\"name\": \"db1\",\n \"enabled\": \"yes\"}]", "c.json:3: enabled: a JSON string where bool belongs"},
		{"[\n{\"name\": \"db1\", \"upstream\": \"127.0.0.1:1\"},\n}", "c.json:2: not valid JSON: invalid character '}' looking for beginning of value"},
		{"[{\"name\": \"db1\", \"upstream\": \"127.0.0.1:1\"}]\n[]", "c.json:2: more after the array"},
		{"[{\"name\": \"db1\", \"upstream\": \"127.0.0.1:1\"}", "c.json:1: not valid JSON: the document ends too early"},
	} {
		_, err := ParseToxiproxyConfig("c.json", []byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got  %v\n want %s", tc.data, err, tc.want)
		}
		if _, ok := errors.AsType[*fileline.Error](err); err != nil && !ok {
			t.Errorf("%q: %T is not a *fileline.Error", tc.data, err)
		}
	}
}

// FuzzParseToxiproxyConfig: no input panics the parser, and what it accepts holds unique,
// valid names and addresses on the lines of the file.
func FuzzParseToxiproxyConfig(f *testing.F) {
	for _, s := range []string{
		`[{"name": "db1", "listen": "127.0.0.1:4001", "upstream": "127.0.0.1:3306"}]`,
		"[\n{\"name\": \"a\", \"upstream\": \"h:1\", \"enabled\": false},\n{\"name\": \"b\", \"listen\": \"\", \"upstream\": \"h:2\"}\n]",
		`[{"name": "db1"}]`,
		`{}`,
		`[1, 2]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tc, err := ParseToxiproxyConfig("f.json", data)
		if err != nil {
			if _, ok := errors.AsType[*fileline.Error](err); !ok {
				t.Fatalf("%T %v is not a *fileline.Error", err, err)
			}
			return
		}
		lines := fileline.LineAt(data, int64(len(data)))
		seen := map[string]bool{}
		for i, nc := range tc.Nodes {
			if seen[nc.Name] || checkName(nc.Name) != nil || nc.validate() != nil {
				t.Fatalf("accepted %+v", nc)
			}
			seen[nc.Name] = true
			if l := tc.NodeLines[i]; l < 1 || l > lines {
				t.Fatalf("node %s at line %d of %d", nc.Name, l, lines)
			}
		}
	})
}
