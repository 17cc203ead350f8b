package proxy

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
)

func TestDecodeNewToxic(t *testing.T) {
	none := func(string) bool { return false }
	for _, tc := range []struct {
		body string
		want Toxic
	}{
		{`{"type":"latency"}`, Toxic{Name: "latency_downstream", Type: "latency", Toxicity: 1, Fault: fault.Fault{Kind: fault.Latency}}},
		{`{"type":"latency","stream":"UPSTREAM","toxicity":0.5,"attributes":{"latency":200,"jitter":50}}`,
			Toxic{Name: "latency_upstream", Type: "latency", Stream: fault.Upstream, Toxicity: 0.5,
				Fault: fault.Fault{Kind: fault.Latency, Delay: 200 * time.Millisecond, Jitter: 50 * time.Millisecond, Stream: fault.Upstream}}},
		{`{"name":"bw","type":"bandwidth","attributes":{"rate":10}}`, Toxic{Name: "bw", Type: "bandwidth", Toxicity: 1, Fault: fault.Fault{Kind: fault.Bandwidth, Rate: 10}}},
		{`{"type":"slow_close","attributes":{"delay":2000}}`, Toxic{Name: "slow_close_downstream", Type: "slow_close", Toxicity: 1, Fault: fault.Fault{Kind: fault.SlowClose, Delay: 2 * time.Second}}},
		{`{"type":"timeout","attributes":{"timeout":0}}`, Toxic{Name: "timeout_downstream", Type: "timeout", Toxicity: 1, Fault: fault.Fault{Kind: fault.Timeout}}},
		{`{"type":"reset_peer","attributes":{"timeout":100}}`, Toxic{Name: "reset_peer_downstream", Type: "reset_peer", Toxicity: 1, Fault: fault.Fault{Kind: fault.ResetPeer, Delay: 100 * time.Millisecond}}},
		{`{"type":"slicer","attributes":{"average_size":64,"size_variation":16,"delay":10}}`,
			Toxic{Name: "slicer_downstream", Type: "slicer", Toxicity: 1, Fault: fault.Fault{Kind: fault.Slicer, Size: 64, Variation: 16, Delay: 10 * time.Microsecond}}},
		{`{"type":"limit_data","toxicity":0,"attributes":{"bytes":4096}}`, Toxic{Name: "limit_data_downstream", Type: "limit_data", Fault: fault.Fault{Kind: fault.LimitData, Bytes: 4096}}},
		{`{"type":"slow","attributes":{"delay":50}}`, Toxic{Name: "slow_downstream", Type: "slow", Toxicity: 1, Fault: fault.Fault{Kind: fault.Slow, Delay: 50 * time.Millisecond}}},
		{`{"type":"error","attributes":{"code":1045}}`, Toxic{Name: "error_downstream", Type: "error", Toxicity: 1, Fault: fault.Fault{Kind: fault.Error, Code: 1045}}},
		{`{"type":"noop"}`, Toxic{Name: "noop_downstream", Type: "noop", Toxicity: 1, Fault: fault.Fault{Kind: fault.Heal}}},
		{`{"type":"freeze","attributes":{"ignored":1}} trailing`, Toxic{Name: "freeze_downstream", Type: "freeze", Toxicity: 1, Fault: fault.Fault{Kind: fault.Freeze}}},
	} {
		got, err := decodeNewToxic([]byte(tc.body), none)
		if err != nil || got != tc.want {
			t.Errorf("%s:\n got  %+v %v\n want %+v", tc.body, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ body, want string }{
		{``, "bad request body: EOF"},
		{`{"type":"latency","stream":"both"}`, "stream was invalid, can be either upstream or downstream"},
		{`{"type":"nope"}`, "invalid toxic type"},
		{`{"type":"latency","attributes":{"latency":-1}}`, "bad request body: attributes.latency: -1 is not a duration from 0 to 31536000000 ms"},
		{`{"type":"latency","attributes":{"latency":9223372036854775807}}`, "bad request body: attributes.latency: 9223372036854775807 is not a duration from 0 to 31536000000 ms"},
		{`{"type":"slicer","attributes":{"average_size":8,"delay":-3}}`, "bad request body: attributes.delay: -3 is not a duration from 0 to 31536000000000 µs"},
		{`{"type":"limit_data","attributes":{"bytes":-5}}`, "bad request body: attributes.bytes: -5 is not a number from 0 to 4611686018427387904"},
		{`{"type":"error","attributes":{"code":70000}}`, "bad request body: attributes.code: 70000 is not a MySQL error code from 1 to 65535"},
		{`{"type":"latency","attributes":{"latency":1.5}}`, "bad request body: json: cannot unmarshal number 1.5 into Go struct field LatencyToxic.attributes.latency of type int64"},
		{`{"type":"timeout","attributes":[1]}`, "bad request body: json: cannot unmarshal array into Go struct field ToxicWrapper.attributes of type toxics.NoopToxic"},
	} {
		_, err := decodeNewToxic([]byte(tc.body), none)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.body, err, tc.want)
		}
	}
	// toxiproxy checks the name before it reads the attributes.
	_, err := decodeNewToxic([]byte(`{"type":"latency","attributes":{"latency":-1}}`), func(string) bool { return true })
	if !errors.Is(err, ErrToxicExists) {
		t.Errorf("a taken name: %v, want ErrToxicExists", err)
	}
}

func TestDecodeToxicUpdate(t *testing.T) {
	old := Toxic{Name: "l", Type: "latency", Stream: fault.Upstream, Toxicity: 0.25,
		Fault: fault.Fault{Kind: fault.Latency, Delay: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Stream: fault.Upstream}}
	for _, tc := range []struct {
		body string
		want Toxic
	}{
		{`{}`, old},
		{`{"attributes":null}`, old},
		{`{"attributes":{"latency":1000}}`, func() Toxic { t := old; t.Fault.Delay = time.Second; return t }()},
		{`{"toxicity":1,"name":"other","stream":"downstream","type":"slicer"}`, func() Toxic { t := old; t.Toxicity = 1; return t }()},
		{`{"attributes":{"jitter":null}}`, old},
	} {
		got, err := decodeToxicUpdate([]byte(tc.body), old)
		if err != nil || got != tc.want {
			t.Errorf("%s:\n got  %+v %v\n want %+v", tc.body, got, err, tc.want)
		}
	}
	if _, err := decodeToxicUpdate([]byte(`{"attributes":{"jitter":-1}}`), old); err == nil {
		t.Error("a negative jitter passed")
	}
}

// FuzzToxicAttrs feeds arbitrary bodies to the toxic decoders: no panic, and what one
// accepts comes back the same when written as the API writes it and read again.
func FuzzToxicAttrs(f *testing.F) {
	for _, s := range []string{
		`{"type":"latency","attributes":{"latency":100,"jitter":10}}`,
		`{"type":"bandwidth","stream":"upstream","attributes":{"rate":1}}`,
		`{"type":"slicer","toxicity":0.5,"attributes":{"average_size":64,"size_variation":16,"delay":10}}`,
		`{"type":"limit_data","attributes":{"bytes":4096}}`,
		`{"type":"error","attributes":{"code":1040}}`,
		`{"type":"reset_peer","name":"rp","attributes":{"timeout":0}}`,
		`{"attributes":{"latency":5},"toxicity":0.1}`,
		`{"type":"latency","attributes":5}`,
		`[`,
	} {
		f.Add([]byte(s))
	}
	old := Toxic{Name: "s", Type: "slicer", Toxicity: 1, Fault: fault.Fault{Kind: fault.Slicer, Size: 8}}
	f.Fuzz(func(t *testing.T, body []byte) {
		if tx, err := decodeNewToxic(body, func(string) bool { return false }); err == nil {
			again := writeAndRead(t, tx)
			if again != tx {
				t.Fatalf("%s: decoded %+v, written and read %+v", body, tx, again)
			}
		}
		if tx, err := decodeToxicUpdate(body, old); err == nil {
			if tx.Name != old.Name || tx.Type != old.Type || tx.Stream != old.Stream || tx.Fault.Kind != old.Fault.Kind {
				t.Fatalf("%s: an update changed what stays: %+v", body, tx)
			}
			if again := writeAndRead(t, tx); again != tx {
				t.Fatalf("%s: updated %+v, written and read %+v", body, tx, again)
			}
		}
	})
}

// writeAndRead writes tx as the API does and reads it back as a new toxic.
func writeAndRead(t *testing.T, tx Toxic) Toxic {
	t.Helper()
	data, err := json.Marshal(tpToxicOf(tx))
	if err != nil {
		t.Fatal(err)
	}
	again, err := decodeNewToxic(data, func(string) bool { return false })
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return again
}
