package replica

import "testing"

func TestPosition(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string
	}{
		{"", 0, ""},
		{"0-1-80", 80, ""},
		{" 0-3-120,1-2-7 ", 120, ""},
		{"1-2-7", 0, ""},
		{"0-1", 0, `GTID "0-1": want DOMAIN-SERVER-SEQUENCE`},
		{"0-1-x", 0, `GTID "0-1-x": "x" is not a number`},
		{"0-1-9223372036854775808", 0, `GTID "0-1-9223372036854775808": out of range`},
	} {
		got, err := Position(c.in)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("Position(%q) = %d, %v; want %d, %q", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzPosition: no text a server could send panics, and a position is never negative.
func FuzzPosition(f *testing.F) {
	for _, s := range []string{"", "0-1-80", "0-3-120,1-2-7", "0-1-", "--", "0-1-18446744073709551615"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := Position(s); err == nil && p < 0 {
			t.Fatalf("Position(%q) = %d", s, p)
		}
	})
}
