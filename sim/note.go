package sim

import "github.com/failsim/failsim/drive"

// FaultSet is the driver's note that a node's link fault changed (drive.FaultSet): the replay
// tells the observers of it, as a *FaultSet, at the timeline event that sets it, before the
// engine's decisions of that instant.
type FaultSet = drive.FaultSet
