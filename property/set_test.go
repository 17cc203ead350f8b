package property_test

import (
	"testing"

	"github.com/failsim/failsim/property"
)

// A Set keeps the sets of its properties' indexes in one word each, which holds 64: a property
// may be named once in a Set, so a Set holds at most one of each built-in property, and there
// must be no more than 64 of them.
func TestSetFitsEveryProperty(t *testing.T) {
	if n := len(property.Names()); n > 64 {
		t.Fatalf("%d properties: a Set holds at most 64", n)
	}
}
