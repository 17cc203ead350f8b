package fileline

import "testing"

// TestJSONLine: the line a value begins on, by its path; the deepest value found when the path
// leaves the document.
func TestJSONLine(t *testing.T) {
	doc := []byte("{\n  \"a\": 1,\n  \"b\": [\n    {\"c\": 2},\n    {\n      \"c\": 3\n    }\n  ],\n  \"d\": {\"e\": [4, 5]}\n}\n")
	for _, c := range []struct {
		path []any
		want int
	}{
		{nil, 1},
		{[]any{"a"}, 2},
		{[]any{"b"}, 3},
		{[]any{"b", 0}, 4},
		{[]any{"b", 0, "c"}, 4},
		{[]any{"b", 1}, 5},
		{[]any{"b", 1, "c"}, 6},
		{[]any{"b", 2, "c"}, 3}, // no third element: the array's line
		{[]any{"d", "e", 1}, 9},
		{[]any{"x"}, 1},
		{[]any{"a", "x"}, 2}, // a number has no keys
	} {
		if got := JSONLine(doc, c.path...); got != c.want {
			t.Errorf("JSONLine(%v) = %d, want %d", c.path, got, c.want)
		}
	}
	if got := JSONLine([]byte("{\n\"a\": [1,,"), "a", 1); got != 2 {
		t.Errorf("broken JSON: line %d, want 2", got)
	}
}
