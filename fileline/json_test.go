package fileline

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSON: a decoding error names the line where the decoder stopped.
func TestJSON(t *testing.T) {
	type doc struct {
		Kind  string `json:"kind"`
		Count int    `json:"count"`
	}
	// A decoder reading a stream says the document was cut short.
	cut := "{\n  \"kind\": \"x\",\n"
	err := json.NewDecoder(strings.NewReader(cut)).Decode(new(doc))
	if got, want := JSON("a.json", []byte(cut), err).Error(), "a.json:2: not valid JSON: the document ends too early"; got != want {
		t.Errorf("a stream cut short:\n got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		data, want string
	}{
		{"{\n  \"kind\": \"x\",\n  \"count\": 1,\n}\n", `a.json:4: not valid JSON: invalid character '}' looking for beginning of object key string`},
		{"{\n  \"kind\": \"x\",\n  \"count\": \"many\"\n}\n", `a.json:3: count: a JSON string where int belongs`},
		{"{\n  \"kind\": \"x\",\n", `a.json:2: not valid JSON: unexpected end of JSON input`},
		{"", `a.json:1: not valid JSON: unexpected end of JSON input`},
	} {
		var d doc
		err := json.Unmarshal([]byte(c.data), &d)
		if err == nil {
			t.Fatalf("%q decoded", c.data)
		}
		if got := JSON("a.json", []byte(c.data), err).Error(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.data, got, c.want)
		}
	}
}
