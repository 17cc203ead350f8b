package check

import (
	"testing"

	"github.com/failsim/failsim/timeline"
)

// A timeline's "family" statement takes exactly the families' names, and its replay judges a
// trace benign exactly when it records Benign.
func TestFamilyNamesAreTimelines(t *testing.T) {
	for f := range numFamilies {
		tl, err := timeline.Parse("f.timeline", []byte("cluster db1:master db2:replica\nfamily "+f.String()+"\n"))
		if err != nil {
			t.Fatalf("family %s: %v", f, err)
		}
		if tl.Family != f.String() || tl.Benign() != (f == Benign) {
			t.Errorf("family %s: Family %q, Benign %v", f, tl.Family, tl.Benign())
		}
		if g, ok := ParseFamily(f.String()); !ok || g != f {
			t.Errorf("ParseFamily(%q) = %v, %v", f, g, ok)
		}
	}
	for _, w := range []string{"all", "Benign", "fatals"} {
		_, err := timeline.Parse("f.timeline", []byte("cluster db1:master db2:replica\nfamily "+w+"\n"))
		if want := "f.timeline:2: family takes the failsim check family the trace was generated in: benign, fatal, mixed or partition"; err == nil || err.Error() != want {
			t.Errorf("family %s: %v, want %q", w, err, want)
		}
		if _, ok := ParseFamily(w); ok {
			t.Errorf("ParseFamily(%q) read a family", w)
		}
	}
}
