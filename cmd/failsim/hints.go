package main

import (
	"errors"
	"io/fs"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/statemap"
)

// missingStatemapHint is the hint for a statemap file that does not exist: what a statemap file
// is, and the shipped ones.
const missingStatemapHint = "the shipped defaults are built in (conf/statemap.properties.defaults; '' stands for them); a statemap file is an override layered on them, such as conf/examples/aggressive.properties"

// missingStatementHint is the hint for a file that a timeline's statemap statement names and
// that does not exist: where its path is read from, and what the timeline runs on without it.
const missingStatementHint = "the statement's path is relative to the timeline's folder (the working directory's for a timeline on stdin); without the statement the timeline runs on the shipped defaults, built in (conf/statemap.properties.defaults); a statemap file is an override layered on them, such as conf/examples/aggressive.properties"

// inputHint is the hint for bad input err that its caller gave none: "" when there is nothing
// to add.
func inputHint(err error) string {
	var fe *statemap.FileError
	if errors.As(err, &fe) && errors.Is(fe.Err, fs.ErrNotExist) {
		if _, ok := errors.AsType[*fileline.Error](err); ok {
			return missingStatementHint // a timeline's statemap statement, at its line
		}
		return missingStatemapHint
	}
	return ""
}
