package main

import (
	"errors"
	"io/fs"

	"github.com/failsim/failsim/statemap"
)

// missingStatemapHint is the hint for a statemap file that does not exist: what a statemap file
// is, and the shipped ones.
const missingStatemapHint = "the shipped defaults are built in (conf/statemap.properties.defaults; '' stands for them); a statemap file is an override layered on them, such as conf/examples/aggressive.properties"

// inputHint is the hint for bad input err that its caller gave none: "" when there is nothing
// to add.
func inputHint(err error) string {
	var fe *statemap.FileError
	if errors.As(err, &fe) && errors.Is(fe.Err, fs.ErrNotExist) {
		return missingStatemapHint
	}
	return ""
}
