package proxy

import "github.com/failsim/failsim/fault"

// freeze stops every byte both ways, a FIN included, and closes nothing: a new connection is
// accepted and its server is not dialled; an open one keeps what it has not yet forwarded.
// heal releases everything in order.
type freeze struct{}

func (freeze) kind() fault.Kind { return fault.Freeze }

// connect holds a new connection before its server is dialled.
func (freeze) connect(*conn) verdict { return hold }

// holds holds both directions.
func (freeze) holds(direction) bool { return true }
